import Foundation
import PostgresClient
import Store
import StoreContracts
import Synchronization
import TestSupport
import Testing

/// Two `attributiond serve` processes on one PostgreSQL database behave as one server: what one
/// writes the other serves, a click is claimed once however the nodes race, a key revoked through
/// one is refused by the other within a second, and a node killed with SIGKILL loses nothing it
/// acknowledged.
@Suite(.serialized) struct TwoNodeTests {
    static let adminKey = "two-node-admin-key-0123456789"
    static let crawler = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
    static let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"

    /// A server process; requests open their own connections, so it is shared between threads.
    struct Node: @unchecked Sendable {
        let server: ServerProcess

        init(_ url: String, environment: [String: String] = [:]) throws {
            server = try ServerProcess(
                ["--database", url],
                environment: [
                    "ATTRIBUTIOND_ADMIN_KEY": TwoNodeTests.adminKey, "ATTRIBUTIOND_TRUSTED_PROXIES": "127.0.0.1",
                    "ATTRIBUTIOND_LOG_LEVEL": "notice",
                ].merging(environment) { $1 })
        }

        func request(
            _ method: String, _ path: String, json: String? = nil, bearer: String? = TwoNodeTests.adminKey,
            headers: [String: String] = [:]
        ) throws -> TestResponse {
            try #require(try response(method, path, json: json, bearer: bearer, headers: headers))
        }

        /// nil when no response came (the node was killed).
        func response(
            _ method: String, _ path: String, json: String? = nil, bearer: String? = TwoNodeTests.adminKey,
            headers: [String: String] = [:]
        ) throws -> TestResponse? {
            let client = try RawClient(port: server.port)
            var head = "\(method) \(path) HTTP/1.1\r\nHost: test\r\n"
            if let bearer { head += "Authorization: Bearer \(bearer)\r\n" }
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            let body = Array((json ?? "").utf8)
            if json != nil { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
            client.send(Array((head + "\r\n").utf8) + body)
            return client.readResponse(bodyless: method == "HEAD")
        }
    }

    /// A project with a link, made through `node`: (project id, token, link id, API key).
    func project(on node: Node) throws -> (id: String, token: String, linkID: String, apiKey: String) {
        let created = try node.request(
            "POST", "/admin/v1/projects",
            json: #"""
                {"name":"Shop","web_url":"https://shop.example.com/","android_store_url":"https://play.google.com/store/apps/details?id=com.shop"}
                """#)
        #expect(created.status == 201, "\(created.bodyText)")
        let id = try #require(created.json?["id"] as? String)
        let token = try #require(created.json?["token"] as? String)
        let link = try node.request("POST", "/admin/v1/projects/\(id)/links", json: #"{"short_code":"summer","app_scheme":"shop"}"#)
        #expect(link.status == 201, "\(link.bodyText)")
        return (id, token, try #require(link.json?["id"] as? String), try #require(created.json?["api_key"] as? String))
    }

    @Test func aLinkAKeyAndAClickAreSharedAndNoClickIsClaimedTwice() throws {
        let url = try PostgresCluster.shared().newDatabase()
        let a = try Node(url)
        let b = try Node(url)
        let (projectID, _, linkID, apiKey) = try project(on: a)

        // Made through A, served by B (B's link cache was empty; a miss reads the database).
        #expect(try b.request("GET", "/nosuch", bearer: nil).status == 404)
        let clicked = try b.request("GET", "/summer", bearer: nil, headers: ["User-Agent": Self.android, "X-Forwarded-For": "198.51.100.9"])
        #expect(clicked.status != 404 && clicked.header("X-Click-Id") != nil, "\(clicked.status) \(clicked.bodyText)")

        // A link renamed through A: B, whose cache holds it, stops serving the old code within 1 s.
        let renamed = try a.request("PUT", "/api/links/\(linkID)", json: #"{"customCode":"autumn"}"#, bearer: apiKey)
        #expect(renamed.status == 200, "\(renamed.bodyText)")
        // As a crawler: a probe B still answers is a bot click, which no install can claim.
        let moved = try eventually(timeout: 1) { try b.request("GET", "/summer", bearer: nil, headers: ["User-Agent": Self.crawler]).status == 404 }
        #expect(moved, "B still served the old code 1 s after A renamed the link")
        #expect(try b.request("GET", "/autumn", bearer: nil, headers: ["User-Agent": Self.android]).status != 404)
        let renamedBack = try a.request("PUT", "/api/links/\(linkID)", json: #"{"customCode":"summer"}"#, bearer: apiKey)
        #expect(renamedBack.status == 200, "\(renamedBack.bodyText)")
        // B hears of the rename back as of the rename: within 1 s, not before A's answer.
        let servedAgain = try eventually(timeout: 1) {
            try b.request("GET", "/summer", bearer: nil, headers: ["User-Agent": Self.crawler]).status != 404
        }
        #expect(servedAgain, "B still missed /summer 1 s after A renamed the link back")

        // A WarpLink key issued through A works on B; revoked through A, B refuses it within 1 s.
        let issued = try a.request("POST", "/admin/v1/projects/\(projectID)/api-keys", json: #"{"format":"warplink","mode":"live"}"#)
        let key = try #require(issued.json?["key"] as? String)
        let keyID = try #require(issued.json?["id"] as? String)
        let resolve = "/v1/links/resolve/summer?domain=test"
        #expect(try b.request("GET", resolve, bearer: key).status == 200)
        #expect(try a.request("DELETE", "/admin/v1/projects/\(projectID)/api-keys/\(keyID)").status == 204)
        let refused = try eventually(timeout: 1) { try b.request("GET", resolve, bearer: key).status == 401 }
        #expect(refused, "B still took the key 1 s after A revoked it")
        #expect(try a.request("GET", resolve, bearer: key).status == 401)  // A's own cache emptied before its answer

        // Two more clicks on the link (five with B's two and the resolve's), then twelve installs
        // referred by it, half through each node at once: each click goes to one install.
        let matchKey = try #require(
            try a.request(
                "POST", "/admin/v1/projects/\(projectID)/api-keys",
                json: #"{"format":"warplink","mode":"live"}"#
            ).json?["key"] as? String)
        for index in 0..<2 {
            _ = try a.request("GET", "/summer", bearer: nil, headers: ["User-Agent": Self.android, "X-Forwarded-For": "198.51.100.1\(index)"])
        }
        // Clicks are queued, not awaited: the race starts once they are all in the database (at
        // least five; under load the key's resolves before B refused it add a few more).
        let database = try PGConnection(url: url)
        let people = "SELECT count(*) FROM clicks WHERE is_bot = FALSE"
        var stored: Int64 = -1
        var unchangedSince = Date()
        // About time: clicks are queued, not awaited, so "all stored" is a count that stopped
        // moving for 0.3 s (the node gives no other sign).
        _ = try eventually(timeout: 10) {
            let now = try database.query(people).integer(0, 0) ?? 0
            if now != stored { (stored, unchangedSince) = (now, Date()) }
            return now >= 5 && Date().timeIntervalSince(unchangedSince) > 0.3
        }
        #expect((5...12).contains(stored), "\(stored) clicks for twelve installs")
        let statuses = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 12) { index in
            let node = index.isMultiple(of: 2) ? a : b
            let body =
                #"{"platform":"android","sdk_version":"0.1.2","referrer":"\#(linkID)","fingerprint_version":"basic","device_id":"device-\#(index)"}"#
            let status =
                (try? node.request(
                    "POST", "/v1/attribution/match", json: body, bearer: matchKey,
                    headers: ["User-Agent": "WarpLink-Android/0.1.2", "X-Forwarded-For": "203.0.113.\(index + 1)"]))?.status ?? 0
            statuses.withLock { $0.append(status) }
        }
        #expect(statuses.withLock { $0 }.allSatisfy { $0 == 200 }, "\(statuses.withLock { $0 })")
        let claims = try database.query("SELECT click_id, count(*) FROM installs WHERE click_id IS NOT NULL GROUP BY click_id")
        let clicks = try #require(try database.query(people).integer(0, 0))
        // The resolves were made inside an installed app: no other device's install claims them.
        let taps = try #require(try database.query(people + " AND source = 'link'").integer(0, 0))
        #expect(try database.query(people + " AND source <> 'link' AND install_id IS NOT NULL").integer(0, 0) == 0)
        #expect(clicks == stored && claims.rows.count == taps, "every tap claimed once: \(claims.rows)")
        #expect(claims.rows.allSatisfy { $0[1] == "1" }, "\(claims.rows)")
        #expect(
            try database.query(
                """
                SELECT count(*) FROM clicks c JOIN installs i ON i.click_id = c.click_id WHERE c.install_id IS DISTINCT FROM i.id
                """
            ).integer(0, 0) == 0)
        #expect(try database.query("SELECT count(*) FROM installs").integer(0, 0) == 12)
    }

    /// One app instance's first launch reaching both nodes at once (a retry through the load
    /// balancer): one install, and every answer names it.
    @Test func oneInstanceIsOneInstallWhicheverNodesItsInitsReach() throws {
        let url = try PostgresCluster.shared().newDatabase()
        let a = try Node(url)
        let b = try Node(url)
        let (_, token, _, _) = try project(on: a)
        let answers = Mutex<[(Int, String?)]>([])
        for round in 0..<5 {
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                let node = index.isMultiple(of: 2) ? a : b
                let response = try? node.request(
                    "POST", "/api/client/init",
                    json: #"{"token":"\#(token)","platform":"IOS","install_instance_id":"same-\#(round)"}"#, bearer: nil)
                answers.withLock { $0.append((response?.status ?? 0, (response?.json?["data"] as? [String: Any])?["install_id"] as? String)) }
            }
        }
        let all = answers.withLock { $0 }
        #expect(all.allSatisfy { $0.0 == 200 }, "\(all.map(\.0))")
        #expect(Set(all.compactMap(\.1)).count == 5, "one install id per instance")
        #expect(try PGConnection(url: url).query("SELECT count(*) FROM installs").integer(0, 0) == 5)
    }

    @Test func aNodeKilledWithSIGKILLLosesNothingItAcknowledged() throws {
        let url = try PostgresCluster.shared().newDatabase()
        let a = try Node(url)
        let b = try Node(url)
        let (_, token, _, _) = try project(on: b)
        let initialized = try a.request(
            "POST", "/api/client/init", json: #"{"token":"\#(token)","platform":"IOS","install_instance_id":"I-1"}"#,
            bearer: nil)
        #expect(initialized.status == 200, "\(initialized.bodyText)")

        // Events through A from four clients at once; A is killed while they are under way.
        let acknowledged = Atomic<Int>(0)
        let sent = Atomic<Int>(0)
        let killer = DispatchWorkItem { a.server.process.send(SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.5, execute: killer)
        DispatchQueue.concurrentPerform(iterations: 4) { client in
            for index in 0..<2_000 {
                sent.add(1, ordering: .relaxed)
                let body = #"{"token":"\#(token)","platform":"IOS","install_instance_id":"I-1","event_name":"e","event_id":"c\#(client)-\#(index)"}"#
                guard let response = try? a.response("POST", "/api/client/capture-event", json: body, bearer: nil) else { return }
                if response.status == 200 { acknowledged.add(1, ordering: .relaxed) }
            }
        }
        killer.wait()
        let database = try PGConnection(url: url)
        let stored = try #require(try database.query("SELECT count(*) FROM events").integer(0, 0))
        #expect(
            acknowledged.load(ordering: .relaxed) > 0 && acknowledged.load(ordering: .relaxed) < sent.load(ordering: .relaxed),
            "the kill came while events were under way")
        #expect(stored >= Int64(acknowledged.load(ordering: .relaxed)), "stored \(stored), acknowledged \(acknowledged.load(ordering: .relaxed))")
        // B, untouched, still serves and sees what A stored.
        let polled = try b.request(
            "POST", "/api/client/attribution-data", json: #"{"token":"\#(token)","platform":"IOS","install_instance_id":"I-1"}"#,
            bearer: nil)
        #expect(polled.status == 200, "\(polled.bodyText)")
    }
}
