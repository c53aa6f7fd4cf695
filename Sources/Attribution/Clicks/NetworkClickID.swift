/// An ad network's own click id on the link URL (`gclid`, `fbclid`, …), kept with the click so
/// that a postback can hand it back to the network (`{network_click_id}`).
public struct NetworkClickID: Sendable, Equatable {
    public var parameter: String
    public var value: String

    public init(parameter: String, value: String) {
        self.parameter = parameter
        self.value = value
    }

    /// The parameters networks put their click ids in, in the order they are looked for.
    public static let standardParameters = [
        "clickid", "click_id", "gclid", "gbraid", "wbraid", "fbclid", "ttclid", "twclid", "msclkid", "ScCid",
    ]

    /// The first standard (or project-named) parameter of the query with a value; values over
    /// 512 characters are not ids and are left out.
    public static func find(in queryItems: [(name: String, value: String)], extraParameters: [String] = []) -> NetworkClickID? {
        for name in standardParameters + extraParameters {
            if let item = queryItems.first(where: { $0.name == name && !$0.value.isEmpty && $0.value.utf8.count <= 512 }) {
                return NetworkClickID(parameter: name, value: item.value)
            }
        }
        return nil
    }

    /// Whether `name` can be a project's extra click-id parameter: 1 to 64 of `A-Z a-z 0-9 _ - .`.
    public static func isValidParameterName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            }
    }
}
