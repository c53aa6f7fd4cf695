public enum ATTrackingManager {
    public enum AuthorizationStatus: Sendable { case notDetermined, restricted, denied, authorized }
    /// Not asked: the default state of a fresh install.
    public static var trackingAuthorizationStatus: AuthorizationStatus { .notDetermined }
    public static func requestTrackingAuthorization(completionHandler: @escaping @Sendable (AuthorizationStatus) -> Void) {
        completionHandler(.denied)
    }
}
