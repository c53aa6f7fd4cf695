import Attribution
import Foundation
import JSON
import StoreContracts
import Synchronization

/// Access tokens of the Campaign Management API, by project: the OAuth client-credentials grant
/// with the client secret a JWT signed ES256 (`AppleAdsClientSecret`), kept until shortly before
/// Apple's expiry. Shared by the name fetcher and the spend reports.
final class AppleAdsAccessTokens: Sendable {
    private let tokens = AccessTokenCache()
    private let settings: AppleAdsSettings
    private let clock: any Clock

    init(settings: AppleAdsSettings, clock: any Clock) {
        self.settings = settings
        self.clock = clock
    }

    func withToken(
        projectID: String, _ credentials: AppleAdsCredentials, transport: any OutboundTransport, userAgent: String,
        then use: @escaping @Sendable (Result<String, CostPullFailure>) -> Void
    ) {
        let now = clock.now()
        if let cached = tokens.token(projectID, now: now.milliseconds / 1000) { return use(.success(cached)) }
        guard let secret = AppleAdsClientSecret.make(credentials, at: now) else {
            return use(.failure(CostPullFailure(description: "the Apple Ads private key cannot sign a client secret")))
        }
        let form = [
            ("grant_type", "client_credentials"), ("client_id", credentials.clientID), ("client_secret", secret), ("scope", "searchadsorg"),
        ].map { "\($0.0)=\(URLQuery.encode($0.1))" }.joined(separator: "&")
        let request = OutboundRequest(
            method: "POST", url: settings.oauthURL,
            headers: [("content-type", "application/x-www-form-urlencoded"), ("user-agent", userAgent)], body: Array(form.utf8),
            keptResponseBytes: 65_536)
        transport.send(request) { [self] result in
            guard case .success(let response) = result, response.statusCode == 200,
                case .object(let body)? = try? JSONDecoder().decode(JSONValue.self, from: Data(response.bodyPrefix.utf8)),
                case .string(let token)? = body["access_token"]
            else { return use(.failure(CostPullFailure(description: "Apple refused the Apple Ads client's token request"))) }
            let lifetime: Int64 = if case .number(let seconds)? = body["expires_in"], seconds > 0, seconds < 1e7 { Int64(seconds) } else { 3_600 }
            tokens.keep(token, projectID, lifetime: lifetime, now: now.milliseconds / 1000)
            use(.success(token))
        }
    }
}
