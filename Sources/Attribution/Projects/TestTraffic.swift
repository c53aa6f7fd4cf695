/// Test traffic (debug builds, test keys) is kept apart from the live app's wherever an id must be
/// unique: the same SDK call made from a debug build first must not take the live one's place.
public enum TestTraffic {
    /// The prefix a test install's payment ids are stored under.
    public static let paymentIDPrefix = "test:"

    /// The payment id as stored: a test install's under `paymentIDPrefix`.
    public static func paymentID(_ id: String, isTest: Bool) -> String { isTest ? paymentIDPrefix + id : id }
}
