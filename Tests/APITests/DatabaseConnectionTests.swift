import Foundation
import PostgresClient
import Store
import StoreContracts
import TestSupport
import Testing

/// A node's connection to PostgreSQL as its operator sees it: while the database is down (a crash,
/// a failover) requests are answered at once with 503 and `Retry-After`, and the node serves again
/// when the database is back, without a restart; TLS is used and its certificate verified when
/// the URL asks for it.
@Suite(.serialized) struct DatabaseConnectionTests {
    typealias Node = TwoNodeTests.Node

    @Test func whileTheDatabaseIsDownRequestsGet503AtOnceAndTheNodeServesAgainWhenItIsBack() throws {
        let cluster = try PostgresCluster()
        let node = try Node(cluster.url)
        let (projectID, _, _, apiKey) = try TwoNodeTests().project(on: node)
        // The node hears its own link's creation from the database too, and empties its link cache
        // then. Waiting that out (changes are heard within 1 s, with room for a loaded machine)
        // lets the page below fill the cache for good; under load it was emptied after the page.
        Thread.sleep(forTimeInterval: 2)  // about time, as said above
        let page = try node.request("GET", "/summer", bearer: nil, headers: ["User-Agent": TwoNodeTests.android])
        #expect(page.status == 200 && page.bodyText.contains("play.google.com"), "\(page.status)")
        // Its click is a background write: stored before the database goes, or it would be lost too.
        let before = try PGConnection(url: cluster.url)
        _ = try eventually(timeout: 5) { try before.query("SELECT count(*) FROM clicks").integer(0, 0) == 1 }

        cluster.kill()
        // A link the node holds still sends people on (its click is a background write, lost
        // while the database is down); everything that must read or write answers 503.
        let during = try node.request("GET", "/summer", bearer: nil, headers: ["User-Agent": TwoNodeTests.android])
        #expect(during.status == 200 && during.bodyText.contains("play.google.com"), "\(during.status) \(during.bodyText)")
        let requests: [(method: String, path: String, json: String?, bearer: String?)] = [
            ("POST", "/admin/v1/projects/\(projectID)/links", #"{"short_code":"winter"}"#, TwoNodeTests.adminKey),
            ("GET", "/admin/v1/projects/\(projectID)/links", nil, TwoNodeTests.adminKey),
            ("GET", "/api/links", nil, apiKey),
            ("GET", "/health/ready", nil, nil),
        ]
        for request in requests {
            let started = Date()
            let answer = try node.request(
                request.method, request.path, json: request.json, bearer: request.bearer,
                headers: ["User-Agent": TwoNodeTests.android])
            let waited = Date().timeIntervalSince(started)
            #expect(answer.status == 503, "\(request.method) \(request.path): \(answer.status) \(answer.bodyText)")
            #expect(answer.header("Retry-After") != nil, "\(request.method) \(request.path)")
            #expect(waited < 5, "\(request.method) \(request.path) waited \(waited) s for its 503")
            if request.path != "/health/ready" {
                #expect(answer.json?["error"] != nil, "\(request.method) \(request.path): \(answer.bodyText)")
                // The cause is the operator's (logged), never shown: no host, no port.
                #expect(answer.json?["message"] as? String == "database unavailable; retry in a moment", "\(answer.bodyText)")
                #expect(!answer.bodyText.contains(String(cluster.port)) && !answer.bodyText.contains("127.0.0.1"), "\(answer.bodyText)")
            }
        }
        // Metrics keep answering through the outage, and say it.
        let metricsDuring = try node.request("GET", "/metrics")
        #expect(metricsDuring.status == 200, "\(metricsDuring.status) \(metricsDuring.bodyText.prefix(300))")
        #expect(metricsDuring.bodyText.contains("\nattributiond_database_up 0.0\n"))
        #expect(try node.request("GET", "/health", bearer: nil).status == 200)  // alive, only not ready

        try cluster.start()
        let back = Date()
        var created: TestResponse?
        _ = try eventually(timeout: max(0, 15 - Date().timeIntervalSince(back))) {
            let answer = try node.request("POST", "/admin/v1/projects/\(projectID)/links", json: #"{"short_code":"winter"}"#)
            if answer.status != 503 { created = answer }
            return created != nil
        }
        #expect(created?.status == 201, "\(created?.status ?? 0) \(created?.bodyText ?? "still 503 15 s after the database came back")")
        #expect(try node.request("GET", "/health/ready", bearer: nil).status == 200)
        #expect(try node.request("GET", "/winter", bearer: nil, headers: ["User-Agent": TwoNodeTests.android]).status == 200)
        let listed = try node.request("GET", "/admin/v1/projects/\(projectID)/links")
        #expect(listed.bodyText.contains("\"winter\"") && listed.bodyText.contains("\"summer\""), "\(listed.bodyText)")

        // The click sent on during the outage was not stored, and /metrics says so.
        let database = try PGConnection(url: cluster.url)
        var stored: Int64?
        _ = try eventually(timeout: 5) {  // /winter's click is a background write too
            stored = try database.query("SELECT count(*) FROM clicks WHERE link_id IS NOT NULL").integer(0, 0)
            return stored == 2
        }
        #expect(stored == 2, "the click before the outage and /winter's")
        let metrics = try node.request("GET", "/metrics").bodyText
        #expect(metrics.contains("\nattributiond_lost_writes_total 1\n"), "\(metrics.prefix(600))")
        #expect(metrics.contains("\nattributiond_database_up 1.0\n"))
    }

    @Test func tlsIsUsedAndItsCertificateVerifiedWhenTheURLAsks() throws {
        let cluster = try PostgresCluster(tls: true)  // refuses connections without TLS
        let root = try #require(cluster.certificatePath)
        let verified = "\(cluster.url)?sslmode=verify-full&sslrootcert=\(root)"

        // The session really is encrypted, with the certificate checked against its root.
        let connection = try PGConnection(url: verified)
        #expect(try connection.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").boolean(0, 0) == true)

        // A node on that URL serves; without TLS the database refuses it and start-up says why.
        let node = try Node(verified)
        let (projectID, _, _, _) = try TwoNodeTests().project(on: node)
        #expect(try node.request("GET", "/summer", bearer: nil, headers: ["User-Agent": TwoNodeTests.android]).status == 200)
        #expect(try node.request("GET", "/admin/v1/projects/\(projectID)/links").bodyText.contains("\"summer\""))

        let refused = #expect(throws: PGError.self) { try PGConnection(url: "\(cluster.url)?sslmode=disable") }
        #expect(refused?.message.contains("no encryption") == true, "\(refused?.message ?? "")")
        #expect(throws: (any Error).self) { try Node("\(cluster.url)?sslmode=disable") }

        // A certificate that does not chain to the given root is refused, not trusted.
        let stranger = try PostgresCluster(tls: true)
        let unverified = #expect(throws: PGError.self) {
            try PGConnection(url: "\(cluster.url)?sslmode=verify-full&sslrootcert=\(try #require(stranger.certificatePath))")
        }
        #expect(unverified?.message.contains("certificate") == true, "\(unverified?.message ?? "")")
    }
}
