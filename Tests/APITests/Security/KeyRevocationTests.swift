import Attribution
import Dispatch
import Foundation
@_spi(StoreInternals) import Store
import StoreContracts
import Synchronization
import TestSupport
import Testing

@testable import API
@testable import App

/// Once `DELETE …/api-keys/{id}` has answered 204, no request that starts later is accepted with
/// that key, however many requests were loading it into the cache at that moment.
@Suite struct KeyRevocationTests {
    private final class Observations: @unchecked Sendable {
        let lock = NSLock()
        /// (key, when the request started, whether it was accepted), monotonic nanoseconds.
        var requests: [(key: String, started: UInt64, accepted: Bool)] = []
        var current: String
        var stop = false
        init(key: String) { current = key }
    }

    /// The race itself, made certain: a load reads the key as valid, the revocation commits and
    /// clears the cache, then the load finishes. Its result serves its own request only.
    @Test func aLoadThatARevocationOvertookIsNotCached() throws {
        let cache = ProjectCache(beforeBlocking: {})
        let project = Project(
            id: "p", name: "P", settings: ProjectSettings(), createdAt: Timestamp(milliseconds: 0), updatedAt: Timestamp(milliseconds: 0))
        let hash: [UInt8] = [1, 2, 3]
        let loaded = try cache.cached(hash, in: \.byKey) {
            cache.invalidateAll()  // the revoke commits while this load is under way
            return project
        }
        #expect(loaded?.id == "p")
        var loadsAfterwards = 0
        let again = try cache.cached(hash, in: \.byKey) {
            loadsAfterwards += 1
            return nil  // the store now says: revoked
        }
        #expect(again == nil)
        #expect(loadsAfterwards == 1, "the overtaken load was cached, so the revoked key stayed valid")
    }

    /// Caches follow commits, not routes: a token changed by any code path (here the repository,
    /// as the config file's declared projects do) is refused as soon as the write returns.
    @Test func aChangedTokenIsRefusedOnceItsWriteCommitted() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, _, _) = try app.projectWithLink()
        try app.services.app.projects.setToken(projectID: projectID, token: "lr-token-first-0123456789")
        let initBody = { (token: String) in #"{"token":"\#(token)","platform":"IOS","install_instance_id":"I-1"}"# }
        #expect(try app.request("POST", "/api/client/init", json: initBody("lr-token-first-0123456789"), adminKey: nil).status == 200)
        // The old token is now cached; change it without the admin API and without touching the cache.
        try app.services.app.projects.setToken(projectID: projectID, token: "lr-token-second-0123456789")
        #expect(try app.request("POST", "/api/client/init", json: initBody("lr-token-first-0123456789"), adminKey: nil).status == 401)
        #expect(try app.request("POST", "/api/client/init", json: initBody("lr-token-second-0123456789"), adminKey: nil).status == 200)
    }

    @Test func aRevokedKeyIsRefusedByEveryRequestThatStartsAfterTheRevokeAnswered() throws {
        let app = try TestApp()
        let project = try app.createProject()
        let projectID = project["id"] as! String
        let observations = Observations(key: project["api_key"] as! String)
        var revokedAt: [String: UInt64] = [:]

        // Threads of their own: blocked in socket reads, Dispatch workers would starve the
        // in-process server's handler queue when the whole suite runs in parallel.
        let hammers = DispatchGroup()
        // Should the test end early (a failed request), the hammers stop too instead of spinning on.
        defer { observations.lock.withLock { observations.stop = true } }
        for _ in 0..<6 {
            hammers.enter()
            Thread.detachNewThread {
                defer { hammers.leave() }
                while true {
                    let (key, done) = observations.lock.withLock { (observations.current, observations.stop) }
                    if done { return }
                    let started = DispatchTime.now().uptimeNanoseconds
                    guard
                        let response = try? app.request(
                            "GET", "/api/links?limit=1", adminKey: nil,
                            headers: ["Authorization": "Bearer \(key)"])
                    else { continue }
                    observations.lock.withLock { observations.requests.append((key, started, response.status == 200)) }
                }
            }
        }
        for _ in 0..<200 {
            let old = observations.lock.withLock { observations.current }
            let issued = try app.request("POST", "/admin/v1/projects/\(projectID)/api-keys")
            #expect(issued.status == 201)
            let newKey = try #require(issued.json?["key"] as? String)
            let keys = try app.request("GET", "/admin/v1/projects/\(projectID)/api-keys").jsonArray ?? []
            let oldID = try #require(
                keys.first { ($0["revoked_at"] is NSNull || $0["revoked_at"] == nil) && ($0["prefix"] as? String).map(old.hasPrefix) == true }?["id"]
                    as? String)
            // Issuing cleared the cache: the hammers are loading the old key again as it is revoked.
            let revoked = try app.request("DELETE", "/admin/v1/projects/\(projectID)/api-keys/\(oldID)")
            #expect(revoked.status == 204)
            revokedAt[old] = DispatchTime.now().uptimeNanoseconds
            usleep(1_000)  // about time: the hammers get a moment with the new key before the next round
            observations.lock.withLock { observations.current = newKey }
        }
        observations.lock.withLock { observations.stop = true }
        hammers.wait()

        let late = observations.requests.filter { request in
            guard let revoked = revokedAt[request.key] else { return false }
            return request.started > revoked && request.accepted
        }
        let checked = observations.requests.filter { request in revokedAt[request.key].map { request.started > $0 } ?? false }
        #expect(checked.count > 200, "too few requests after revocations to tell anything")
        #expect(late.isEmpty, "\(late.count) of \(checked.count) requests started after their key's revoke returned were accepted")
    }
}
