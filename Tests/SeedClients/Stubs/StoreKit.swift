import Foundation

/// Records every conversion value the client is told to apply, for the test to read back.
public enum SKAdNetwork {
    public enum CoarseConversionValue: String, Sendable { case low, medium, high }

    public struct Update: Sendable, Equatable {
        public let fine: Int
        public let coarse: String?
        public let lockWindow: Bool
    }

    nonisolated(unsafe) private static var recorded: [Update] = []
    private static let lock = NSLock()
    public static var updates: [Update] { lock.withLock { recorded } }

    public static func updatePostbackConversionValue(
        _ fine: Int, coarseValue: CoarseConversionValue, lockWindow: Bool,
        completionHandler: ((Error?) -> Void)? = nil
    ) {
        lock.withLock { recorded.append(Update(fine: fine, coarse: coarseValue.rawValue, lockWindow: lockWindow)) }
        completionHandler?(nil)
    }

    public static func updatePostbackConversionValue(_ fine: Int, completionHandler: ((Error?) -> Void)? = nil) {
        lock.withLock { recorded.append(Update(fine: fine, coarse: nil, lockWindow: false)) }
        completionHandler?(nil)
    }

    public static func updateConversionValue(_ fine: Int) {
        lock.withLock { recorded.append(Update(fine: fine, coarse: nil, lockWindow: false)) }
    }
}
