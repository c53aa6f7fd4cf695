import Attribution
import Foundation
@_spi(StoreInternals) import Store
import Testing
import TestSupport

/// The store protocols the PostgreSQL backend implements so far, run alike against both backends
/// (one factory, one parameter): what one does, the other must.
enum Backend: String, CaseIterable, CustomStringConvertible {
    case sqlite, postgres
    var description: String { rawValue }
}

/// One backend's stores on a fresh database, kept alive (the cluster or the file) for the test.
final class BackendStores {
    let projects: any ProjectStore
    let signingKeys: any SigningKeyStore
    let cluster: PostgresCluster?
    let sqlite: TemporaryDatabase?
    let pool: PGPool?

    /// - Parameter ownCluster: a cluster of its own (to stop or kill), instead of a new database on
    ///   the shared one.
    init(_ backend: Backend, clock: any Clock = SystemClock(), ownCluster: Bool = false) throws {
        switch backend {
        case .sqlite:
            let temp = try TemporaryDatabase()
            let store = SQLiteStore(database: temp.database, clock: clock)
            (projects, signingKeys, sqlite, cluster, pool) = (store.projects, store.signingKeys, temp, nil, nil)
        case .postgres:
            let cluster = ownCluster ? try PostgresCluster() : nil
            let url = try cluster?.url ?? PostgresCluster.shared().newDatabase()
            try PGMigrator.migrate(url: url)
            let pool = PGPool(url: url, size: 4, checkoutTimeout: .seconds(2))
            (projects, signingKeys, sqlite, self.cluster, self.pool) = (PGProjectStore(pool: pool, clock: clock), PGSigningKeyStore(pool: pool), nil, cluster, pool)
        }
    }
}

@Suite(.serialized) struct BackendStoreTests {
    static func everySetting() -> ProjectSettings {
        var settings = ProjectSettings()
        settings.iosTeamID = "TEAM123456"
        settings.iosBundleID = "com.example.shop"
        settings.androidPackage = "com.example.shop"
        settings.androidSHA256 = ["AA:BB", "CC:DD"]
        settings.iosStoreURL = "https://apps.apple.com/app/id1"
        settings.androidStoreURL = "https://play.google.com/store/apps/details?id=com.example.shop"
        settings.webURL = "https://example.com/it's"
        settings.attributionWindowHours = 48
        settings.minConfidence = 0.55
        settings.currency = "EUR"
        settings.timeZone = "Asia/Kolkata"
        settings.signing = .required
        settings.sdkAuth = .open
        settings.skanSchema = #"{"windows": []}"#
        settings.clickIDParameters = ["irclickid"]
        settings.appleAds = false
        return settings
    }

    @Test(arguments: Backend.allCases)
    func projectsRoundTripAndRefuseTakenNames(_ backend: Backend) throws {
        let stores = try BackendStores(backend)
        let created = try stores.projects.create(name: "Shop", settings: Self.everySetting(), testMode: false, token: nil, apiKey: nil)
        #expect(try stores.projects.find(id: created.project.id) == created.project)
        #expect(try stores.projects.find(name: "Shop")?.settings == Self.everySetting())
        #expect(try stores.projects.project(forToken: created.token)?.id == created.project.id)
        #expect(try stores.projects.project(forToken: created.token + "x") == nil)
        #expect(try stores.projects.project(forAPIKey: created.apiKey.key)?.id == created.project.id)

        let second = try stores.projects.create(name: "Other", settings: ProjectSettings())
        #expect(try stores.projects.list().map(\.name) == ["Shop", "Other"])
        #expect(throws: StoreError.conflict("a project named 'Shop' already exists")) {
            try stores.projects.create(name: "Shop", settings: ProjectSettings())
        }
        #expect(throws: StoreError.conflict("that token or API key is already in use")) {
            try stores.projects.create(name: "Third", settings: ProjectSettings(), testMode: false, token: created.token, apiKey: nil)
        }

        var renamed = second.project
        renamed.name = "Renamed"
        renamed.settings = Self.everySetting()
        let updated = try #require(try stores.projects.update(renamed))
        #expect(updated.name == "Renamed" && updated.settings == Self.everySetting())
        renamed.name = "Shop"
        #expect(throws: StoreError.conflict("a project named 'Shop' already exists")) { try stores.projects.update(renamed) }
        #expect(try stores.projects.find(id: second.project.id)?.name == "Renamed")  // the refused update changed nothing
        let missing = Project(id: "nope", name: "Nope", settings: ProjectSettings(), testMode: false,
                              createdAt: Timestamp(milliseconds: 0), updatedAt: Timestamp(milliseconds: 0))
        #expect(try stores.projects.update(missing) == nil)

        try stores.projects.setToken(projectID: second.project.id, token: "tok_declared_in_config")
        #expect(try stores.projects.project(forToken: "tok_declared_in_config")?.id == second.project.id)
    }

    @Test(arguments: Backend.allCases)
    func apiKeysAreIssuedListedAndRevoked(_ backend: Backend) throws {
        let stores = try BackendStores(backend)
        let created = try stores.projects.create(name: "Shop", settings: ProjectSettings())
        let issued = try #require(try stores.projects.issueAPIKey(projectID: created.project.id, key: "ak_given_by_the_operator"))
        #expect(issued.prefix == "ak_give")
        #expect(try stores.projects.issueAPIKey(projectID: "no-such-project") == nil)
        #expect(try stores.projects.hasAPIKey(projectID: created.project.id, key: "ak_given_by_the_operator"))
        #expect(try stores.projects.apiKeys(projectID: created.project.id).map(\.id).sorted() == [created.apiKey.id, issued.id].sorted())

        #expect(try stores.projects.revokeAPIKey(projectID: created.project.id, keyID: issued.id))
        #expect(try !stores.projects.revokeAPIKey(projectID: created.project.id, keyID: issued.id))
        #expect(try stores.projects.project(forAPIKey: "ak_given_by_the_operator") == nil)
        #expect(try !stores.projects.hasAPIKey(projectID: created.project.id, key: "ak_given_by_the_operator"))
        let keys = try stores.projects.apiKeys(projectID: created.project.id)
        #expect(keys.first { $0.id == issued.id }?.revokedAt != nil && keys.first { $0.id == created.apiKey.id }?.revokedAt == nil)
    }

    @Test(arguments: Backend.allCases)
    func testClocksNeverGoBack(_ backend: Backend) throws {
        let stores = try BackendStores(backend)
        let live = try stores.projects.create(name: "Live", settings: ProjectSettings())
        let test = try stores.projects.create(name: "Test", settings: ProjectSettings(), testMode: true)
        try stores.projects.saveClock(projectID: test.project.id, now: Timestamp(milliseconds: 5_000_000_000_000))
        try stores.projects.saveClock(projectID: test.project.id, now: Timestamp(milliseconds: 4_000_000_000_000))
        try stores.projects.saveClock(projectID: live.project.id, now: Timestamp(milliseconds: 9_000_000_000_000))
        let clocks = try stores.projects.testClocks()
        #expect(clocks.count == 1)
        #expect(clocks.first?.projectID == test.project.id && clocks.first?.now == Timestamp(milliseconds: 5_000_000_000_000))
    }

    @Test(arguments: Backend.allCases)
    func signingKeysKeepTheirSecretUntilRevoked(_ backend: Backend) throws {
        let stores = try BackendStores(backend)
        let project = try stores.projects.create(name: "Shop", settings: ProjectSettings()).project
        let key = try stores.signingKeys.create(projectID: project.id, now: Timestamp(milliseconds: 1))
        #expect(key.keyID.hasPrefix("sk_"))
        #expect(try stores.signingKeys.secret(keyID: key.keyID, projectID: project.id) == key.secret)
        #expect(try stores.signingKeys.secret(keyID: key.keyID, projectID: "other") == nil)
        #expect(try stores.signingKeys.revoke(keyID: key.keyID, projectID: project.id, now: Timestamp(milliseconds: 2)))
        #expect(try stores.signingKeys.secret(keyID: key.keyID, projectID: project.id) == nil)
        #expect(try !stores.signingKeys.revoke(keyID: key.keyID, projectID: project.id, now: Timestamp(milliseconds: 3)))
    }

    /// While PostgreSQL is down, calls fail at once with `unavailable` (503 at the API), and the
    /// same pool serves again once it is back, without a restart.
    @Test func thePoolSaysUnavailableWhileTheDatabaseIsDownAndRecovers() throws {
        let stores = try BackendStores(.postgres, ownCluster: true)
        let project = try stores.projects.create(name: "Shop", settings: ProjectSettings()).project
        let cluster = try #require(stores.cluster)
        cluster.kill()
        let started = Date()
        let down = #expect(throws: StoreError.self) { try stores.projects.find(id: project.id) }
        if case .unavailable = down {} else { Issue.record("expected .unavailable, got \(String(describing: down))") }
        #expect(throws: StoreError.self) { try stores.projects.create(name: "During", settings: ProjectSettings()) }
        #expect(Date().timeIntervalSince(started) < 10)
        try cluster.start()
        #expect(try stores.projects.find(id: project.id)?.name == "Shop")
        #expect(try stores.projects.create(name: "After", settings: ProjectSettings()).project.name == "After")
    }
}
