import App
import Attribution
import Cryptography
import HTTP
import StoreContracts

/// The one place a click is recorded, for the paths that record one: a tap on a link in a
/// browser, a LinkForty resolve, a Linkrunner app open, a WarpLink resolve. Each gets a
/// time-ordered id, the client's address and network key (after trusted proxies), the bounds of
/// `Click.Limits`, and a count in `/metrics`; the click is queued as a background write, which
/// the answer waits for when the caller passes a `ClickCommit` (its route found the writer behind).
struct ClickRecorder: Sendable {
    let services: Services

    /// Records the click `make` builds from the new id (or `clickID`, an id the app made, whose
    /// repeats record nothing more) and the client's address and network key; returns the id.
    @discardableResult
    func record(
        at now: Timestamp, for request: HTTPRequest, countTowardLimit: Bool = false, clickID given: String? = nil,
        commit: ClickCommit? = nil, _ make: (_ clickID: String, _ ip: String?, _ ipKey: String?) -> Click
    ) -> String {
        let clickID = given ?? TimeOrderedID.secure(at: now)
        let client = services.clientIP.clientAddress(of: request)
        let network = services.addressLists.network(of: client)
        var click = make(clickID, client?.ipString, network.ipKey)
        click.ipClass = network.addressClass
        if let commit {
            commit.arm()
            services.app.clicks.record(click, countTowardLimit: countTowardLimit) { commit.complete($0) }
        } else {
            services.app.clicks.record(click, countTowardLimit: countTowardLimit)
        }
        services.metrics.recordClick()
        return clickID
    }
}
