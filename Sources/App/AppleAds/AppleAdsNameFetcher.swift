import Attribution
import Cryptography
import Foundation
import JSON
import StoreContracts
import Synchronization

/// Fetches the names of Apple Ads campaigns, ad groups and keywords from the Campaign Management
/// API for projects that configured credentials (OAuth client credentials; the client secret a
/// JWT signed ES256), and caches them in the store. Best effort: ids work without names, and a
/// name that could not be fetched is asked for again with the next answer that carries its id.
final class AppleAdsNameFetcher: Sendable {
    private let store: any StoreBackend
    private let transport: any OutboundTransport
    private let settings: AppleAdsSettings
    private let clock: any Clock
    private let userAgent: String
    private let tokens: AppleAdsAccessTokens
    /// API answers are JSON documents of a few kilobytes.
    static let answerBytes = 262_144

    init(
        store: any StoreBackend, transport: any OutboundTransport, settings: AppleAdsSettings, clock: any Clock, userAgent: String,
        tokens: AppleAdsAccessTokens
    ) {
        self.tokens = tokens
        self.store = store
        self.transport = transport
        self.settings = settings
        self.clock = clock
        self.userAgent = userAgent
    }

    /// What is missing of the names `answer` refers to, fetched in the background.
    func fetchMissing(projectID: String, answer: AppleAdsAnswer) {
        guard answer.attribution, let campaign = answer.campaignID,
            let credentials = try? store.appleAdsNames.credentials(projectID: projectID),
            let known = try? store.appleAdsNames.names(projectID: projectID)
        else { return }
        var wanted: [(kind: AppleAdsNames.Kind, id: String, path: String, field: String)] = []
        if known.name(.campaign, campaign) == nil { wanted.append((.campaign, campaign, "campaigns/\(campaign)", "name")) }
        if let adGroup = answer.adGroupID {
            if known.name(.adGroup, adGroup) == nil { wanted.append((.adGroup, adGroup, "campaigns/\(campaign)/adgroups/\(adGroup)", "name")) }
            if let keyword = answer.keywordID, known.name(.keyword, keyword) == nil {
                wanted.append((.keyword, keyword, "campaigns/\(campaign)/adgroups/\(adGroup)/targetingkeywords/\(keyword)", "text"))
            }
        }
        guard !wanted.isEmpty, wanted.allSatisfy({ Self.isPathSegmentSafe($0.id) }) else { return }
        let fetches = wanted
        withToken(projectID: projectID, credentials) { [self] token in
            for item in fetches {
                let request = OutboundRequest(
                    method: "GET", url: settings.apiURL + item.path,
                    headers: [
                        ("authorization", "Bearer \(token)"), ("x-ap-context", "orgId=\(credentials.orgID)"), ("user-agent", userAgent),
                    ], body: [], keptResponseBytes: Self.answerBytes)
                transport.send(request) { [self] result in
                    guard case .success(let response) = result, response.statusCode == 200,
                        case .object(let body)? = try? JSONDecoder().decode(JSONValue.self, from: Data(response.bodyPrefix.utf8)),
                        case .object(let data)? = body["data"], case .string(let name)? = data[item.field], !name.isEmpty
                    else { return }
                    // A waited-for write: not on the transport's thread, which deliveries share.
                    DispatchQueue.global().async { [self] in
                        try? store.appleAdsNames.saveName(
                            String(name.prefix(512)), kind: item.kind, id: item.id, projectID: projectID,
                            at: clock.now())
                    }
                }
            }
        }
    }

    /// Apple's ids are digits; anything else never goes into a URL path.
    static func isPathSegmentSafe(_ id: String) -> Bool { !id.isEmpty && id.utf8.count <= 32 && id.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }

    private func withToken(projectID: String, _ credentials: AppleAdsCredentials, then use: @escaping @Sendable (String) -> Void) {
        tokens.withToken(projectID: projectID, credentials, transport: transport, userAgent: userAgent) { result in
            if case .success(let token) = result { use(token) }
        }
    }
}
