import Attribution
import Foundation
import PostgresClient
@_spi(StoreInternals) import PostgresStore
import SQLValues
@_spi(StoreInternals) import Store
import StoreContracts
import Synchronization
import TestSupport
import Testing

/// One backend's stores on a fresh database, kept alive (the cluster or the file) for the test.
final class BackendStores {
    let projects: any ProjectStore
    let signingKeys: any SigningKeyStore
    let links: any LinkStore
    let templates: any TemplateStore
    let clicks: any ClickStore
    let dashboard: any DashboardStore
    let postbacks: any PostbackStore
    let appleAdsNames: any AppleAdsNameStore
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
            (links, templates, clicks, dashboard, postbacks) = (store.links, store.templates, store.clicks, store.dashboard, store.postbacks)
            appleAdsNames = store.appleAdsNames
        case .postgres:
            let cluster = ownCluster ? try PostgresCluster() : nil
            let url = try cluster?.url ?? PostgresCluster.shared().newDatabase()
            try PGMigrator.migrate(url: url)
            let pool = PGPool(url: url, size: 4, checkoutTimeout: .seconds(2), errors: .store)
            (projects, signingKeys, sqlite, self.cluster, self.pool) = (
                pool.projectStore(clock: clock), pool.signingKeyStore(), nil, cluster, pool
            )
            (links, templates) = (pool.linkStore(), pool.templateStore())
            clicks = PGClickStore(pool: pool, writer: PGWriter(pool: pool))
            dashboard = pool.dashboardStore()
            postbacks = pool.postbackStore()
            appleAdsNames = pool.appleAdsNameStore()
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
        #expect(try stores.projects.list().map(\.name).sorted() == ["Other", "Shop"])  // both may share a millisecond
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
        let missing = Project(
            id: "nope", name: "Nope", settings: ProjectSettings(), testMode: false,
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

    static func fullLink(projectID: String, templateID: String?, code: String, at milliseconds: Int64) -> Link {
        Link(
            id: UUID().uuidString.lowercased(), projectID: projectID, templateID: templateID, shortCode: code, title: "Summer Sale 50%_off",
            description: "Everything, it's half", originalURL: "https://example.com/sale", iosURL: "https://example.com/ios",
            androidURL: "https://example.com/android", webURL: "https://example.com/web", appScheme: "shop",
            deepLinkPath: "/sale", deepLinkParameters: ["ref": "mail", "ü": "ß"],
            utm: UTM(source: "newsletter", medium: "email", campaign: "summer", term: "sale", content: "hero"),
            targeting: #"{"countries":["DE"]}"#, og: Link.OpenGraph(title: "OG", description: "OG text", image: "https://example.com/og.png"),
            attributionWindowHours: 72, appendClickID: true, expiresAt: Timestamp(milliseconds: milliseconds + 86_400_000), maxClicks: 500,
            active: true, externalUserID: "user-1", optionsHash: "hash-1", createdAt: Timestamp(milliseconds: milliseconds),
            updatedAt: Timestamp(milliseconds: milliseconds))
    }

    @Test(arguments: Backend.allCases)
    func linksRoundTripSearchPageAndRefuseTakenCodes(_ backend: Backend) throws {
        let stores = try BackendStores(backend)
        let project = try stores.projects.create(name: "Shop", settings: ProjectSettings()).project
        let template = LinkTemplate(
            id: "t1", projectID: project.id, slug: "promo", name: "Promo", iosURL: "https://example.com/t",
            deepLinkParameters: ["a": "b"], utm: ["utm_source": "x"], attributionWindowHours: 24,
            createdAt: Timestamp(milliseconds: 1_000))
        #expect(try stores.templates.create(template) == template)
        #expect(throws: StoreError.conflict("the project already has a template with slug 'promo'")) { try stores.templates.create(template) }
        let later = LinkTemplate(id: "t2", projectID: project.id, slug: "later", name: "Later", createdAt: Timestamp(milliseconds: 2_000))
        _ = try stores.templates.create(later)
        #expect(try stores.templates.find(slug: "promo", projectID: project.id) == template)
        #expect(try stores.templates.find(id: "t1", projectID: "other") == nil)
        #expect(try stores.templates.mostRecent(projectID: project.id) == later)
        #expect(try stores.templates.list(projectID: project.id).map(\.id) == ["t1", "t2"])

        let full = Self.fullLink(projectID: project.id, templateID: "t1", code: "summer", at: 1_700_000_000_000)
        #expect(try stores.links.create(full, codeIsCustom: true) == full)
        #expect(try stores.links.find(id: full.id, projectID: project.id) == full)
        #expect(try stores.links.find(id: full.id, projectID: "other") == nil)
        let byCode = try #require(try stores.links.find(shortCode: "summer", domain: nil))
        #expect(byCode.link == full && byCode.clicks == 0)
        let taken = Self.fullLink(projectID: project.id, templateID: nil, code: "summer", at: 1_700_000_000_001)
        #expect(throws: StoreError.conflict("short code 'summer' is already taken")) { try stores.links.create(taken, codeIsCustom: true) }
        let drawnAgain = try stores.links.create(taken, codeIsCustom: false)  // a generated code that collides is drawn again
        #expect(drawnAgain.shortCode != "summer")

        for index in 0..<5 {
            _ = try stores.links.create(
                Link(
                    id: "plain-\(index)", projectID: project.id, shortCode: "plain\(index)",
                    createdAt: Timestamp(milliseconds: 1_600_000_000_000 + Int64(index))), codeIsCustom: true)
        }
        #expect(try stores.links.list(projectID: project.id, limit: 3, offset: 0).map(\.shortCode) == [drawnAgain.shortCode, "summer", "plain4"])
        #expect(try stores.links.list(projectID: project.id, limit: 3, offset: 3).map(\.shortCode) == ["plain3", "plain2", "plain1"])
        // Any case, and % _ \ taken as themselves.
        #expect(try stores.links.search(projectID: project.id, text: "PLAIN3", limit: 10, offset: 0).map(\.id) == ["plain-3"])
        #expect(try stores.links.search(projectID: project.id, text: "PLAIN", limit: 2, offset: 1).map(\.id) == ["plain-3", "plain-2"])
        #expect(
            try stores.links.search(projectID: project.id, text: "50%_OFF", limit: 10, offset: 0).map(\.id).sorted()
                == [full.id, drawnAgain.id].sorted())
        #expect(try stores.links.search(projectID: project.id, text: "%", limit: 10, offset: 0).count == 2)
        #expect(try stores.links.search(projectID: project.id, text: "ain_", limit: 10, offset: 0).isEmpty)
        #expect(try stores.links.findDuplicate(projectID: project.id, externalUserID: "user-1", optionsHash: "hash-1")?.id == full.id)

        var edited = full
        edited.title = nil
        edited.active = false
        edited.utm = UTM(source: "ads")
        edited.deepLinkParameters = [:]
        edited.maxClicks = nil
        #expect(try stores.links.update(edited) == edited)
        #expect(try stores.links.find(id: full.id, projectID: project.id) == edited)
        #expect(try stores.links.findDuplicate(projectID: project.id, externalUserID: "user-1", optionsHash: "hash-1")?.id == drawnAgain.id)
        var clash = edited
        clash.shortCode = "plain0"
        #expect(throws: StoreError.conflict("short code 'plain0' is already taken")) { try stores.links.update(clash) }

        var seen: [String] = []
        try stores.links.forEach(batchSize: 2) { seen.append($0.id) }
        #expect(seen == seen.sorted() && seen.count == 7)
        #expect(try stores.links.delete(id: full.id, projectID: project.id))
        #expect(try !stores.links.delete(id: full.id, projectID: project.id))
        #expect(try stores.links.find(shortCode: "summer", domain: nil) == nil)
    }

    /// Waits for a store call that reports through a completion.
    static func wait<T: Sendable>(_ call: (@escaping @Sendable (Result<T, any Error>) -> Void) -> Void) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<T, any Error>?>(nil)
        call { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        return try outcome.withLock { $0! }.get()
    }

    @Test(arguments: Backend.allCases)
    func clicksAreQueuedCountedOnceAndTakeTheirBeacon(_ backend: Backend) throws {
        let stores = try BackendStores(backend)
        let project = try stores.projects.create(name: "Shop", settings: ProjectSettings()).project
        _ = try stores.links.create(
            Link(
                id: "l1", projectID: project.id, shortCode: "sale", maxClicks: 10,
                createdAt: Timestamp(milliseconds: 0)), codeIsCustom: true)
        let now = Timestamp(milliseconds: 1_700_000_000_000)
        let full = Click(
            clickID: "c-full", projectID: project.id, linkID: "l1", source: .link, createdAt: now, ip: "203.0.113.9",
            ipKey: "203.0.113.9", userAgent: "Mozilla/5.0 (iPhone)", acceptLanguage: "de-DE", referer: "https://ref.example/",
            query: ["gclid": "G-1", "utm_source": "ads"], utm: UTM(source: "ads", campaign: "spring"), platform: .ios,
            osVersion: "17.4", deviceClass: .iphone, isBot: false, languages: ["de-DE", "en"], idfv: nil,
            advertisingID: nil, networkClickID: NetworkClickID(parameter: "gclid", value: "G-1"))
        try Self.wait { stores.clicks.record(countTowardLimit: true, full, completion: $0) }
        #expect(try stores.clicks.find(clickID: "c-full") == full)
        // Many at once (the writer batches them), a repeat of a stored id, and a bot: each counted as SQLite counts them.
        let group = DispatchGroup()
        let failures = Mutex(0)
        for index in 0..<40 {
            group.enter()
            let click = Click(
                clickID: index == 39 ? "c-full" : "c-\(index)", projectID: project.id, linkID: "l1", source: .link,
                createdAt: now, isBot: index == 38)
            stores.clicks.record(countTowardLimit: true, click) { result in
                if case .failure = result { failures.withLock { $0 += 1 } }
                group.leave()
            }
        }
        #expect(group.wait(timeout: .now() + 30) == .success)
        #expect(failures.withLock { $0 } == 0)
        #expect(try stores.links.find(shortCode: "sale", domain: nil)?.clicks == 1 + 38)  // not the repeat, not the bot
        #expect(try stores.clicks.find(clickID: "c-38")?.isBot == true)

        let signals = BrowserSignals(
            screenWidth: 390, screenHeight: 844, pixelRatio: 3, timezone: "Europe/Berlin", javascriptOffset: -60,
            languages: ["de-DE"])
        let taken = try Self.wait {
            stores.clicks.recordBeacon(
                clickID: "c-0", signals: signals, maximumAgeSeconds: 600,
                now: { _ in now.adding(seconds: 60) }, delivery: nil, completion: $0)
        }
        #expect(taken)
        let beaconed = try #require(try stores.clicks.find(clickID: "c-0"))
        #expect(
            beaconed.screenWidth == 390 && beaconed.pixelRatio == 3 && beaconed.timezone == "Europe/Berlin"
                && beaconed.utcOffsetMinutes == 60 && beaconed.languages == ["de-DE"])
        let late = try Self.wait {
            stores.clicks.recordBeacon(
                clickID: "c-1", signals: signals, maximumAgeSeconds: 600,
                now: { _ in now.adding(seconds: 601) }, delivery: nil, completion: $0)
        }
        let unknown = try Self.wait {
            stores.clicks.recordBeacon(
                clickID: "nope", signals: signals, maximumAgeSeconds: 600,
                now: { _ in now }, delivery: nil, completion: $0)
        }
        #expect(!late && !unknown)
        #expect(try stores.clicks.find(clickID: "c-1")?.screenWidth == nil)
    }

    @Test(arguments: Backend.allCases)
    func postbackTemplatesRoundTrip(_ backend: Backend) throws {
        let stores = try BackendStores(backend)
        let project = try stores.projects.create(name: "Shop", settings: ProjectSettings()).project
        var template = PostbackTemplate(
            id: "pb1", projectID: project.id, network: "tiktok", trigger: "install", method: "POST",
            url: "https://ads.example/postback?click={network_click_id}", body: #"{"e":"{event_name}"}"#,
            enabled: true, createdAt: Timestamp(milliseconds: 1), updatedAt: Timestamp(milliseconds: 1))
        try stores.postbacks.create(template)
        let second = PostbackTemplate(
            id: "pb2", projectID: project.id, network: "google", trigger: "payment", method: "GET",
            url: "https://ads.example/g", body: nil, enabled: false, createdAt: Timestamp(milliseconds: 2),
            updatedAt: Timestamp(milliseconds: 2))
        try stores.postbacks.create(second)
        #expect(try stores.postbacks.templates(projectID: project.id) == [second, template])
        #expect(try stores.postbacks.allTemplates().count == 2)
        #expect(try stores.postbacks.template(id: "pb2", projectID: project.id)?.enabled == false)
        template.enabled = false
        template.body = nil
        template.updatedAt = Timestamp(milliseconds: 5)
        #expect(try stores.postbacks.update(template))
        #expect(try stores.postbacks.template(id: "pb1", projectID: project.id) == template)
        #expect(
            try !stores.postbacks.update(
                PostbackTemplate(
                    id: "nope", projectID: project.id, network: "x", trigger: "install", method: "GET",
                    url: "https://x", body: nil, enabled: true, createdAt: Timestamp(milliseconds: 0),
                    updatedAt: Timestamp(milliseconds: 0))))
        #expect(try stores.postbacks.delete(id: "pb1", projectID: project.id))
        #expect(try !stores.postbacks.delete(id: "pb1", projectID: project.id))
        #expect(try stores.postbacks.template(id: "pb1", projectID: project.id) == nil)
    }

    @Test(arguments: Backend.allCases)
    func appleAdsCredentialsAndNames(_ backend: Backend) throws {
        let stores = try BackendStores(backend)
        let project = try stores.projects.create(name: "Shop", settings: ProjectSettings()).project
        #expect(try stores.appleAdsNames.credentials(projectID: project.id) == nil)
        let first = AppleAdsCredentials(
            clientID: "SEARCHADS.1", teamID: "SEARCHADS.1", keyID: "k1", orgID: "40669820",
            privateKey: "-----BEGIN EC PRIVATE KEY-----\nAAA\n-----END EC PRIVATE KEY-----")
        try stores.appleAdsNames.setCredentials(first, projectID: project.id, at: Timestamp(milliseconds: 1))
        let second = AppleAdsCredentials(clientID: "SEARCHADS.2", teamID: "SEARCHADS.2", keyID: "k2", orgID: "1", privateKey: "pem")
        try stores.appleAdsNames.setCredentials(second, projectID: project.id, at: Timestamp(milliseconds: 2))  // replaces
        #expect(try stores.appleAdsNames.credentials(projectID: project.id) == second)
        #expect(try stores.appleAdsNames.deleteCredentials(projectID: project.id))
        #expect(try !stores.appleAdsNames.deleteCredentials(projectID: project.id))

        try stores.appleAdsNames.saveName("Summer", kind: .campaign, id: "542370539", projectID: project.id, at: Timestamp(milliseconds: 1))
        try stores.appleAdsNames.saveName("Summer 2", kind: .campaign, id: "542370539", projectID: project.id, at: Timestamp(milliseconds: 2))
        try stores.appleAdsNames.saveName("Shoes", kind: .keyword, id: "87675432", projectID: project.id, at: Timestamp(milliseconds: 2))
        let all = try stores.appleAdsNames.names(projectID: project.id)
        #expect(all.byKind[.campaign]?["542370539"] == "Summer 2" && all.byKind[.keyword]?["87675432"] == "Shoes")
        let answer = AppleAdsAnswer(attribution: true, orgID: "40669820", campaignID: "542370539", adGroupID: "542317095", keywordID: "87675432")
        let ofAnswer = try stores.appleAdsNames.names(of: answer, projectID: project.id)
        #expect(ofAnswer.byKind[.campaign]?["542370539"] == "Summer 2" && ofAnswer.byKind[.adGroup] == nil)
        #expect(ofAnswer.byKind[.keyword]?["87675432"] == "Shoes")
    }

    @Test(arguments: Backend.allCases)
    func dashboardUsersAndSessions(_ backend: Backend) throws {
        let stores = try BackendStores(backend)
        let shop = try stores.projects.create(name: "Shop", settings: ProjectSettings()).project
        let other = try stores.projects.create(name: "Other", settings: ProjectSettings()).project
        let ana = DashboardUser(id: "u1", projectID: shop.id, email: "Ana@Example.com", role: .admin, createdAt: Timestamp(milliseconds: 1))
        #expect(try stores.dashboard.createUser(ana, passwordHash: "hash-1") == ana)
        // The same address in another case is the same user in this project; another project may have it.
        #expect(
            try stores.dashboard.createUser(
                DashboardUser(
                    id: "u2", projectID: shop.id, email: "ana@example.COM", role: .viewer,
                    createdAt: Timestamp(milliseconds: 2)), passwordHash: "h") == nil)
        let elsewhere = DashboardUser(id: "u3", projectID: other.id, email: "ana@example.com", role: .viewer, createdAt: Timestamp(milliseconds: 3))
        #expect(try stores.dashboard.createUser(elsewhere, passwordHash: "hash-3") == elsewhere)
        let found = try stores.dashboard.credentials(email: "ANA@example.com")
        #expect(found.map(\.user.id) == ["u1", "u3"] && found.map(\.passwordHash) == ["hash-1", "hash-3"])
        #expect(try stores.dashboard.users(projectID: shop.id) == [ana])

        let token: [UInt8] = Array(repeating: 7, count: 32)
        let adminToken: [UInt8] = Array(repeating: 9, count: 32)
        try stores.dashboard.createSession(
            tokenHash: token, userID: "u1", csrfToken: "csrf-1", at: Timestamp(milliseconds: 100),
            expiresAt: Timestamp(milliseconds: 1_000))
        try stores.dashboard.createSession(
            tokenHash: adminToken, userID: nil, csrfToken: "csrf-admin", at: Timestamp(milliseconds: 100),
            expiresAt: Timestamp(milliseconds: 1_000))
        #expect(
            try stores.dashboard.session(tokenHash: token, at: Timestamp(milliseconds: 500))
                == DashboardSession(user: ana, csrfToken: "csrf-1", expiresAt: Timestamp(milliseconds: 1_000)))
        #expect(try stores.dashboard.session(tokenHash: adminToken, at: Timestamp(milliseconds: 500))?.user == nil)
        #expect(try stores.dashboard.session(tokenHash: token, at: Timestamp(milliseconds: 1_000)) == nil)  // expired
        #expect(try stores.dashboard.revokeSessions(userID: "u1", at: Timestamp(milliseconds: 600)) == 1)
        #expect(try stores.dashboard.session(tokenHash: token, at: Timestamp(milliseconds: 700)) == nil)
        try stores.dashboard.revokeSession(tokenHash: adminToken, at: Timestamp(milliseconds: 700))
        #expect(try stores.dashboard.session(tokenHash: adminToken, at: Timestamp(milliseconds: 800)) == nil)
        // A new sign-in sweeps expired sessions; deleting a user takes theirs.
        try stores.dashboard.createSession(
            tokenHash: Array(repeating: 1, count: 32), userID: "u3", csrfToken: "c", at: Timestamp(milliseconds: 2_000),
            expiresAt: Timestamp(milliseconds: 9_000))
        #expect(try stores.dashboard.deleteUser(id: "u3", projectID: other.id))
        #expect(try !stores.dashboard.deleteUser(id: "u3", projectID: other.id))
        #expect(try stores.dashboard.session(tokenHash: Array(repeating: 1, count: 32), at: Timestamp(milliseconds: 3_000)) == nil)
    }

    /// PostgreSQL's group commit: writes queued together share transactions, and one refused
    /// write (a taken key) fails alone while the rest of its batch commits.
    @Test func theWriterBatchesAndARefusedWriteFailsAlone() throws {
        let url = try PostgresCluster.shared().newDatabase()
        let connection = try PGConnection(url: url)
        try connection.execute("CREATE TABLE t (id integer PRIMARY KEY, txid bigint NOT NULL)")
        let writer = PGWriter(pool: PGPool(url: url, size: 2, errors: .store))
        // The key write 150 repeats is stored before: writes without an order go to several lanes,
        // which commit side by side, so a key two of them share could go to either.
        #expect(try writer.writeAndWait { try $0.run("INSERT INTO t (id, txid) VALUES (?, txid_current())", 10_000) } == 1)
        let results = Mutex<[Int: Bool]>([:])
        let group = DispatchGroup()
        for index in 0..<200 {
            group.enter()
            writer.write({ try $0.run("INSERT INTO t (id, txid) VALUES (?, txid_current())", index == 150 ? 10_000 : index) }) { result in
                results.withLock { $0[index] = (try? result.get()) != nil }
                group.leave()
            }
        }
        #expect(group.wait(timeout: .now() + 30) == .success)
        let outcome = results.withLock { $0 }
        #expect(outcome.count == 200 && outcome[150] == false && outcome.filter { !$0.value }.count == 1)
        #expect(try connection.query("SELECT count(*) FROM t").integer(0, 0) == 200)  // 199 and the one before
        let transactions = try #require(try connection.query("SELECT count(DISTINCT txid) FROM t WHERE id < 10000").integer(0, 0))
        #expect(transactions < 100)  // batched: far fewer transactions than writes
        #expect(try writer.writeAndWait { try $0.run("DELETE FROM t WHERE id < ?", 10) } == 10)

        // Statements alone are pipelined (one round trip a batch); one refused among them sends
        // the batch the other way, where it fails alone, and the connections stay usable.
        let counts = Mutex<[Int: Result<Int, any Error>]>([:])
        for index in 0..<300 {
            group.enter()
            writer.write(statement: "INSERT INTO t (id, txid) VALUES (?, txid_current())", [.integer(Int64(index == 250 ? 1000 : 1000 + index))]) {
                result in
                counts.withLock { $0[index] = result }
                group.leave()
            }
        }
        #expect(group.wait(timeout: .now() + 30) == .success)
        let statementOutcomes = counts.withLock { $0 }
        #expect(statementOutcomes.count == 300)
        #expect(statementOutcomes.filter { (try? $0.value.get()) == 1 }.count == 299)
        #expect(throws: PGError.self) { try statementOutcomes[250]!.get() }
        #expect(try connection.query("SELECT count(*) FROM t WHERE id BETWEEN 1000 AND 1299").integer(0, 0) == 299)
        #expect(try writer.writeAndWait { try $0.run("DELETE FROM t WHERE id BETWEEN ? AND ?", 1000, 1299) } == 299)
    }

    /// Rows a batch's writes hold to its end (`runHeld`, a fact's outbox jobs) are written with the
    /// writes that held them: a write refused in the batch loses its own, never another's, even
    /// when it had sent the rows held before it (`writeHeld`, as a move of new jobs does).
    @Test func heldRowsGoWithTheirWritesWhenOneInTheBatchIsRefused() throws {
        let url = try PostgresCluster.shared().newDatabase()
        let connection = try PGConnection(url: url)
        try connection.execute("CREATE TABLE h (id integer PRIMARY KEY)")
        let writer = PGWriter(pool: PGPool(url: url, size: 2, errors: .store))
        struct Refused: Error {}
        let refused: Set<Int> = [90, 150]
        let results = Mutex<[Int: Bool]>([:])
        let group = DispatchGroup()
        for index in 0..<200 {
            group.enter()
            writer.write({ connection -> Int in
                try connection.runHeld("INSERT INTO h (id) VALUES (?)", [.integer(Int64(index))])
                // Every tenth write sends what is held so far, as a statement that reads it would.
                if index % 10 == 0 { try connection.writeHeld() }
                if refused.contains(index) { throw Refused() }
                return index
            }) { result in
                results.withLock { $0[index] = (try? result.get()) != nil }
                group.leave()
            }
        }
        #expect(group.wait(timeout: .now() + 30) == .success)
        let outcome = results.withLock { $0 }
        #expect(Set(outcome.filter { !$0.value }.keys) == refused)
        let stored = try connection.query("SELECT id FROM h ORDER BY id")
        let ids = Set((0..<stored.rows.count).compactMap { stored.integer($0, 0) }.map(Int.init))
        #expect(ids == Set(0..<200).subtracting(refused), "missing \(Set(0..<200).subtracting(refused).subtracting(ids).sorted())")
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
