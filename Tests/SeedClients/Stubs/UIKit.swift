import Foundation

/// Stand-ins for the UIKit values the seed clients read, with iOS's shapes: screen sizes in points,
/// and `CGFloat`-valued sizes that serialise as plain JSON numbers (as on iOS, where `CGFloat` is a
/// `Double` bridged to `NSNumber`).
public final class UIDevice: @unchecked Sendable {
    public static let current = UIDevice()
    public let model = "iPhone"
    public let name = "iPhone"
    public let systemVersion = ProcessInfo.processInfo.environment["SEED_SYSTEM_VERSION"] ?? "17.4.1"
    public let identifierForVendor: UUID? = ProcessInfo.processInfo.environment["SEED_IDFV"].flatMap(UUID.init(uuidString:))
}

public struct UIScreenSize: Sendable {
    public let width: Double
    public let height: Double
}

public final class UIScreen: @unchecked Sendable {
    public static let main = UIScreen()
    /// An iPhone 15's screen: 393 × 852 points at 3×.
    public let bounds = UIScreenSize(width: 393, height: 852)
    public let scale: Double = 3
}
