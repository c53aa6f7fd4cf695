import Foundation

public final class ASIdentifierManager: @unchecked Sendable {
    private static let instance = ASIdentifierManager()
    public static func shared() -> ASIdentifierManager { instance }
    /// All zeros, as iOS answers without tracking authorization.
    public let advertisingIdentifier = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
}
