import Foundation

public enum AAAttribution {
    public struct Unavailable: Error {}
    /// The token from `SEED_ADSERVICES_TOKEN`, or an error as on a simulator.
    public static func attributionToken() throws -> String {
        guard let token = ProcessInfo.processInfo.environment["SEED_ADSERVICES_TOKEN"] else { throw Unavailable() }
        return token
    }
}
