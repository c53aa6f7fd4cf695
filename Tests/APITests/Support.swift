import App
import Attribution
import CurlTransport
import Foundation
import HTTP
import PostgresClient
@_spi(StoreInternals) import PostgresStore
import SQLValues
import StoreContracts
import Synchronization
import TestSupport

@testable import API
@testable import App
@_spi(StoreInternals) @testable import Store

/// A real server on 127.0.0.1:0 over a fresh temporary database, with the admin API on: a SQLite
/// file, or with `ATTRIBUTIOND_TEST_BACKEND=postgres` a new database on the shared throwaway
/// PostgreSQL cluster (`scripts/test` runs the API tests both ways).
final class TestApp: @unchecked Sendable {
    static let adminKey = "test-admin-key-0123456789"
    static let backend: Backend = ProcessInfo.processInfo.environment["ATTRIBUTIOND_TEST_BACKEND"] == "postgres" ? .postgres : .sqlite
    let folder: URL
    let store: any StoreBackend
    /// The command line's flags for the server's database.
    let databaseArguments: [String]
    let services: Services
    let server: HTTPServer
    var port: UInt16 { server.port }
    /// What the server reported of responses it refused to send (`onRefusedResponse`).
    let refusedResponses = LockedList()

    /// - Parameter allowedHosts: `request` sends `Host: test`, so that name is accepted by default.
    init(
        adminKey: String? = TestApp.adminKey, trustedProxies: [String] = [], publicURL: String? = nil, allowedHosts: [String] = ["test"],
        clock: any Clock = SystemClock(), allowPrivateOutbound: Bool = false, appleAds: AppleAdsSettings = AppleAdsSettings(),
        adPlatforms: AdPlatformSettings = AdPlatformSettings(), revenue: RevenueSettings = RevenueSettings(),
        dashboard: DashboardSettings = DashboardSettings(), writeLanes: Int = 2, countries: TapCountries = TapCountries(),
        addressLists: AddressLists = AddressLists(), clickBacklogLimit: Int = ClickService.defaultBacklogLimit,
        reportInternalError: @escaping @Sendable (any Error, String) -> Void = { _, _ in }
    ) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-api-\(UUID().uuidString)")
        switch Self.backend {
        case .sqlite:
            let path = folder.appendingPathComponent("db.sqlite").path
            try TemplateDatabase.copy(to: path)
            store = SQLiteStore(database: try Database(path: path), clock: clock)
            databaseArguments = ["--db", folder.appendingPathComponent("db.sqlite").path]
        case .postgres:
            let url = try PostgresCluster.shared().newDatabase()
            store = try PGStoreBackend(url: url, readers: 2, writeLanes: writeLanes, clock: clock)
            databaseArguments = ["--database", url]
        }
        services = Services(
            store: store, clock: clock, adminKey: adminKey, trustedProxies: trustedProxies, publicURL: publicURL,
            allowedHosts: allowedHosts,
            outboundPolicy: OutboundAddressPolicy(allowPrivateAddresses: allowPrivateOutbound), appleAds: appleAds, adPlatforms: adPlatforms,
            revenue: revenue, dashboard: dashboard, countries: countries, addressLists: addressLists, clickBacklogLimit: clickBacklogLimit,
            reportInternalError: reportInternalError)
        let refused = refusedResponses
        server = HTTPServer(
            host: "127.0.0.1", port: 0, onRefusedResponse: { problem in refused.append(problem) },
            responder: Application.makeRouter(services: services))
        try server.start()
        services.publicHosts.listening(on: "127.0.0.1", port: server.port)
    }

    /// Delivery workers this app started (`startOutbox`), stopped with it.
    private let workers = LockedWorkers()

    /// Starts a delivery worker on this app's outbox, retrying after `waits` seconds.
    @discardableResult
    func startOutbox(
        waits: [Double] = [0.2, 0.2, 0.2], timeout: Double = 10,
        onFinalFailure: @escaping @Sendable (OutboxMessage, Int, String) -> Void = { _, _, _ in }
    ) -> OutboxWorker {
        var settings = OutboxWorker.Settings()
        settings.schedule = DeliverySchedule(waits: waits, jitter: 0)
        settings.pollSeconds = 0.05
        settings.userAgent = "attributiond/test"
        settings.onFinalFailure = onFinalFailure
        let transport = CurlTransport(totalTimeout: timeout, policy: services.app.outboundPolicy)
        let worker = services.app.makeOutboxWorker(transport: transport, settings: settings)
        worker.start()
        workers.append((worker, transport))
        return worker
    }

    deinit {
        for (worker, transport) in workers.all {
            worker.stop(drainSeconds: 2)
            transport.shutdown()
        }
        server.shutdownAndWait()
        if let postgres = store as? PGStoreBackend { try? postgres.close() }  // its listener's thread holds it
        try? FileManager.default.removeItem(at: folder)
    }

    /// Sends one request on a new connection and reads the response.
    func request(
        _ method: String, _ path: String, json: String? = nil, adminKey: String? = TestApp.adminKey,
        headers: [String: String] = [:], host: String = "test"
    ) throws -> TestResponse {
        let client = try RawClient(port: port)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\n"
        if let adminKey { head += "Authorization: Bearer \(adminKey)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let body = Array((json ?? "").utf8)
        if json != nil { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        client.send(Array((head + "\r\n").utf8) + body)
        guard let response = client.readResponse(bodyless: method == "HEAD") else {
            throw ConnectError(code: 0)
        }
        return response
    }

    /// Sends `body` as `contentType` with the admin key (a CSV upload, say) and reads the response.
    func send(_ method: String, _ path: String, body: [UInt8], contentType: String) throws -> TestResponse {
        let client = try RawClient(port: port)
        let head =
            "\(method) \(path) HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer \(TestApp.adminKey)\r\n"
            + "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n\r\n"
        client.send(Array(head.utf8) + body)
        guard let response = client.readResponse() else { throw ConnectError(code: 0) }
        return response
    }

    /// Creates a project through the admin API; returns its JSON.
    func createProject(_ name: String = "Shop", extra: String = "") throws -> [String: Any] {
        let response = try request("POST", "/admin/v1/projects", json: #"{"name":"\#(name)"\#(extra)}"#)
        guard response.status == 201, let json = response.json else {
            throw ConnectError(code: Int32(response.status))
        }
        return json
    }

    /// Waits until every write queued so far (clicks are queued, not awaited) is committed.
    func settle() throws {
        try store.waitForQueuedWrites()
    }

    /// A project with store and web URLs, and a link on it; returns (projectID, apiKey, linkJSON).
    func projectWithLink(
        _ link: String = #"{"short_code":"summer","app_scheme":"shop","deep_link_path":"/product/42","utm":{"source":"mail","campaign":"summer"}}"#,
        testMode: Bool = false
    ) throws
        -> (projectID: String, apiKey: String, link: [String: Any])
    {
        let project = try createProject(
            "Shop",
            extra:
                #","ios_store_url":"https://apps.apple.com/app/id123","android_store_url":"https://play.google.com/store/apps/details?id=com.shop","web_url":"https://shop.example.com/","ios_team_id":"ABCDE12345","ios_bundle_id":"com.example.shop""#
                + (testMode ? #","test_mode":true"# : ""))
        let projectID = project["id"] as! String
        let response = try request("POST", "/admin/v1/projects/\(projectID)/links", json: link)
        guard response.status == 201, let json = response.json else { throw ConnectError(code: Int32(response.status)) }
        return (projectID, project["api_key"] as! String, json)
    }

    /// Moves a test-mode project's clock forward through the admin API; returns its new "now".
    @discardableResult
    func advanceClock(_ projectID: String, seconds: Double) throws -> Timestamp {
        let response = try request("POST", "/admin/v1/projects/\(projectID)/clock", json: #"{"advance_seconds":\#(seconds)}"#)
        guard response.status == 200, let now = response.json?["now_ms"] as? Int else { throw ConnectError(code: Int32(response.status)) }
        return Timestamp(milliseconds: Int64(now))
    }

    /// Facts waiting for their jobs to be made: rows of `outbox_new` (jobs written with their
    /// fact, not moved yet) and, on SQLite, the events and installs after their log's cursor.
    /// Whether the outbox has nothing left to do now: every fact has its jobs, no job is due
    /// (claimed or not) and none is being sent. A retry scheduled for later does not count.
    func outboxIsIdle() throws -> Bool {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        return try factsAwaitingJobs() == 0
            && count("SELECT count(*) FROM outbox_jobs WHERE status = 'pending' AND next_attempt_at <= \(now)") == 0
            && services.app.deliveryCounters.inFlight.load(ordering: .relaxed) == 0
    }

    /// Waits until `outboxIsIdle`: what a worker was going to send is sent, so a count of what a
    /// receiver got is final.
    func waitForOutboxIdle(timeout: Double = 10) throws -> Bool {
        try eventually(timeout: timeout) { try outboxIsIdle() }
    }

    func factsAwaitingJobs() throws -> Int64 {
        var count = try self.count("SELECT count(*) FROM outbox_new")
        if Self.backend == .sqlite {
            count += try self.count(
                """
                SELECT (SELECT count(*) FROM events WHERE recorded_by IS NULL AND rowid > (SELECT position FROM outbox_cursors WHERE name = 'events'))
                    + (SELECT count(*) FROM installs WHERE rowid > (SELECT position FROM outbox_cursors WHERE name = 'installs'))
                """)
        }
        return count
    }

    func count(_ sql: String) throws -> Int64 {
        try queryOne(sql) { $0.int(0) } ?? -1
    }

    /// The first row of a query on the server's database, whichever backend it is.
    func queryOne<T>(_ sql: String, _ values: any StoreArgument..., map: (any ColumnReader) throws -> T) throws -> T? {
        try query(sql, values, map: map).first
    }

    func query<T>(_ sql: String, _ values: [any StoreArgument] = [], map: (any ColumnReader) throws -> T) throws -> [T] {
        let bound = values.map(\.sqlValue)
        switch store {
        case let sqlite as SQLiteStore: return try sqlite.database.read { try $0.query(sql, values: bound) { try map($0) } }
        case let postgres as PGStoreBackend: return try postgres.pool.read { try $0.query(sql, values: bound) { try map($0) } }
        default: preconditionFailure("a backend the tests do not know")
        }
    }

    /// Runs a statement on the server's database (a row the API would refuse to write).
    @discardableResult
    func run(_ sql: String, _ values: any StoreArgument...) throws -> Int {
        let bound = values.map(\.sqlValue)
        return try transaction { try $0.run(sql, bound) }
    }

    /// Statements in one transaction on the server's database, through its writer.
    @discardableResult
    func transaction<T: Sendable>(_ body: @escaping @Sendable (TestSQL) throws -> T) throws -> T {
        switch store {
        case let sqlite as SQLiteStore:
            return try sqlite.database.writeAndWait { connection in try body(TestSQL { try connection.run($0, values: $1) }) }
        case let postgres as PGStoreBackend:
            return try postgres.pool.transaction { connection in try body(TestSQL { try connection.run($0, values: $1) }) }
        default: preconditionFailure("a backend the tests do not know")
        }
    }
}

/// A connection of either backend, as tests write rows through it.
struct TestSQL {
    let execute: (String, [SQLValue]) throws -> Int

    init(_ execute: @escaping (String, [SQLValue]) throws -> Int) { self.execute = execute }

    @discardableResult
    func run(_ sql: String, _ values: any StoreArgument...) throws -> Int { try run(sql, values) }

    @discardableResult
    func run(_ sql: String, _ values: [any StoreArgument]) throws -> Int { try execute(sql, values.map(\.sqlValue)) }
}

final class LockedWorkers: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [(OutboxWorker, CurlTransport)] = []
    func append(_ item: (OutboxWorker, CurlTransport)) { lock.withLock { items.append(item) } }
    var all: [(OutboxWorker, CurlTransport)] { lock.withLock { items } }
}

/// Strings appended from any thread (what a server reported), read by the test.
final class LockedList: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func append(_ item: String) { lock.withLock { items.append(item) } }
    var all: [String] { lock.withLock { items } }
}

/// One database migrated from empty per test run, copied for each `TestApp`: a copy is a file
/// copy, where migrating every test's database ran all the migrations again (their triggers and
/// rollup back-fills included). Opening the copy finds every migration applied.
enum TemplateDatabase {
    static let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "attributiond-template-\(ProcessInfo.processInfo.processIdentifier)")

    /// The migrated file, its WAL folded in so that the one file is the whole database.
    static let path: Result<String, any Error> = Result {
        let path = folder.appendingPathComponent("db.sqlite").path
        try? FileManager.default.removeItem(at: folder)
        let database = try Database(path: path)
        try database.flushAndCheckpoint()
        atexit { try? FileManager.default.removeItem(at: TemplateDatabase.folder) }
        return path
    }

    static func copy(to destination: String) throws {
        try FileManager.default.createDirectory(
            at: URL(fileURLWithPath: destination).deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try path.get(), toPath: destination)
    }
}
