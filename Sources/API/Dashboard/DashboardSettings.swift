/// The dashboard's place on the server (config `dashboard.enabled`, `dashboard.prefix`).
public struct DashboardSettings: Sendable {
    public var enabled: Bool
    /// One path segment, with its leading slash: `/dashboard`.
    public var prefix: String

    public init(enabled: Bool = true, prefix: String = "/dashboard") {
        self.enabled = enabled
        self.prefix = prefix
    }

    /// A prefix is `/` and one segment of letters, digits, `-` or `_`; nil when it is not.
    public static func validPrefix(_ text: String) -> String? {
        var segment = Substring(text)
        while segment.hasPrefix("/") { segment = segment.dropFirst() }
        while segment.hasSuffix("/") { segment = segment.dropLast() }
        guard (1...64).contains(segment.utf8.count),
            segment.utf8.allSatisfy({ byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            })
        else { return nil }
        return "/" + segment
    }
}
