import Attribution
import Foundation
import GeoIP
import HTTP
import StoreContracts
import TestSupport
import Testing

@testable import API
@testable import App

/// Traffic quality through the public APIs (docs/traffic-quality.md): a Private Relay tap is
/// matched by its region and device signals, never its address; a click injected after Play began
/// the install is refused, sends no postback and is reported.
@Suite struct TrafficQualityTests {
    /// Apple's format: `prefix,country,region,city,`.
    static let relayList = """
        172.224.226.0/27,FR,FR-IDF,Paris,
        2a02:26f7:b3c0:4000::/64,FR,FR-IDF,Paris,
        """

    static func lists(hosting: [String] = []) throws -> AddressLists {
        let (relay, skipped) = AddressListFile.privateRelay(relayList)
        #expect(relay.count == 2 && skipped == 0)
        let hosted = try AddressListFile.cidrs(hosting.joined(separator: "\n"), addressClass: .hosting)
        return AddressLists(AddressRanges(blocks: [AddressRanges.carrierNATSpace] + relay + hosted), hasRelayList: true)
    }

    func explain(_ app: TestApp, _ projectID: String, _ installID: String) throws -> [String: Any] {
        let answer = try app.request("GET", "/admin/v1/projects/\(projectID)/installs/\(installID)/explain")
        #expect(answer.status == 200, "\(answer.bodyText)")
        return try #require(answer.json)
    }

    static func iPhoneInstall(device: String, screen: (Int, Int) = (1170, 2532)) -> String {
        #"{"userAgent":"Shop/2.1 iOS/17.4.1","timezone":"Europe/Paris","language":"fr_FR","screenWidth":\#(screen.0),"screenHeight":\#(screen.1),"platform":"iOS","platformVersion":"17.4.1","deviceId":"\#(device)"}"#
    }

    @Test func aRelayedTapMatchesByRegionAndDeviceSignalsNeverByItsAddress() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"], addressLists: try Self.lists())
        let (projectID, key, _) = try app.projectWithLink()
        let clickID = try app.clickWithBeacon(ip: "172.224.226.9")
        try app.settle()
        let click = try #require(try app.store.clicks.find(clickID: clickID))
        #expect(click.ipClass == .privateRelay && click.ipKey == "relay:FR" && click.ip == "172.224.226.9")
        // What a node starting on this database knows of the relay taps before it (`RecentRelayTaps`).
        let stored = try app.store.clicks.latestRelayTaps()
        #expect(stored.count == 1 && stored.first?.projectID == projectID && stored.first?.regionKey == "relay:FR")
        #expect(stored.first?.at == click.createdAt.milliseconds)

        // A stranger behind the same relay, another phone: the shared address matches nothing.
        let stranger = try app.install(ip: "172.224.226.10", key: key, body: Self.iPhoneInstall(device: "phone-b", screen: (1284, 2778)))
        #expect(stranger.json?["attributed"] as? Bool == false, "\(stranger.bodyText)")
        let strangerID = try #require(stranger.json?["installId"] as? String)
        let strangerExplained = try explain(app, projectID, strangerID)
        #expect(strangerExplained["install_address_class"] as? String == "private_relay", "\(strangerExplained)")
        #expect(strangerExplained["address_class"] as? String == "private_relay")
        let refusedCandidate = try #require((strangerExplained["candidates"] as? [[String: Any]])?.first)
        #expect(refusedCandidate["outcome"] as? String == "screen disagrees", "\(refusedCandidate)")

        // The tapper's own install, from home: region (FR, from its locale), screen and zone agree.
        let own = try app.install(ip: "198.51.100.41", key: key, body: Self.iPhoneInstall(device: "phone-a"))
        #expect(own.json?["attributed"] as? Bool == true, "\(own.bodyText)")
        #expect(own.json?["confidenceScore"] as? Double == 60)
        let factors = try #require(own.json?["matchedFactors"] as? [String])
        #expect(factors.first == "region" && !factors.contains("ip") && factors.contains("screen") && factors.contains("timezone"))
        let installID = try #require(own.json?["installId"] as? String)
        let explained = try explain(app, projectID, installID)
        let winner = try #require((explained["candidates"] as? [[String: Any]])?.first, "\(explained)")
        #expect(winner["click_id"] as? String == clickID && winner["found_by"] as? String == "private_relay_region")
        #expect(winner["address_class"] as? String == "private_relay")
        #expect((winner["outcome"] as? String)?.contains("tap came through Private Relay: address not used") == true, "\(winner)")
        #expect(explained["address_class"] is NSNull)
    }

    @Test func aRelayedTapWithoutABeaconIsNeverMatched() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"], addressLists: try Self.lists())
        let (projectID, key, _) = try app.projectWithLink()
        let tap = try app.request(
            "GET", "/summer", adminKey: nil, headers: ["User-Agent": safariIPhone, "X-Forwarded-For": "2a02:26f7:b3c0:4000::17"])
        let clickID = try #require(tap.header("X-Click-Id"))
        try app.settle()
        #expect(try app.store.clicks.find(clickID: clickID)?.ipKey == "relay:FR")
        let own = try app.install(ip: "198.51.100.42", key: key, body: Self.iPhoneInstall(device: "phone-c"))
        #expect(own.json?["attributed"] as? Bool == false, "platform, OS and language alone are every Parisian iPhone's")
        let explained = try explain(app, projectID, try #require(own.json?["installId"] as? String))
        let candidate = try #require((explained["candidates"] as? [[String: Any]])?.first, "\(explained)")
        #expect((candidate["outcome"] as? String)?.hasPrefix("tap came through Private Relay: address not used") == true, "\(candidate)")
    }

    @Test func aDatacenterClickNeverWinsEvenNamedByTheReferrer() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"], addressLists: try Self.lists(hosting: ["203.0.113.0/24"]))
        let (projectID, token) = try app.linkrunnerProject()
        let clickID = try app.clickWithBeacon(ip: "203.0.113.50")
        try app.settle()
        #expect(try app.store.clicks.find(clickID: clickID)?.ipClass == .hosting)
        let now = Int(Date().timeIntervalSince1970)
        let initialized = try app.client(
            "init", Self.referredInit(token: token, instance: "TQ-6", clickID: clickID, installBegin: now + 60, referrerClick: now))
        #expect((initialized.json?["data"] as? [String: Any])?["attribution_source"] as? String == "ORGANIC", "\(initialized.bodyText)")
        let installID = try #require((initialized.json?["data"] as? [String: Any])?["install_id"] as? String)
        let explained = try explain(app, projectID, installID)
        #expect(explained["rejected_reasons"] as? [String] == ["datacenter_click"], "\(explained)")
        let candidate = try #require((explained["candidates"] as? [[String: Any]])?.first, "\(explained)")
        #expect((candidate["outcome"] as? String)?.hasPrefix("refused: datacenter_click") == true, "\(candidate)")
        #expect(candidate["address_class"] as? String == "hosting", "\(candidate)")
    }

    /// An anonymous-IP database as MaxMind's GeoIP2-Anonymous-IP is shaped, written by Debian's
    /// libmaxmind-db-writer-perl: a hosting network and a VPN exit.
    static func anonymousIPDatabase() throws -> String {
        try maxMindTestDatabase(
            named: "anonymous",
            tree: """
                my $tree = MaxMind::DB::Writer::Tree->new(
                    ip_version => 6, record_size => 24, database_type => 'attributiond-Test-Anonymous-IP', languages => ['en'],
                    remove_reserved_networks => 0, description => { en => 'attributiond test anonymous IPs' },
                    map_key_type_callback => sub { { is_hosting_provider => 'boolean', is_anonymous_vpn => 'boolean', is_anonymous => 'boolean' }->{ $_[0] } },
                );
                $tree->insert_network('192.0.2.0/24', { is_hosting_provider => 1, is_anonymous => 1 });
                $tree->insert_network('198.51.100.128/25', { is_anonymous_vpn => 1, is_anonymous => 1 });
                """)
    }

    @Test func anAnonymousIPDatabaseClassesWhatNoListNames() throws {
        let database = try MaxMindAnonymousIP(path: try Self.anonymousIPDatabase())
        #expect(database.addressClass(ofIP: "192.0.2.9") == .hosting && database.addressClass(ofIP: "198.51.100.200") == .vpn)
        #expect(database.addressClass(ofIP: "198.51.100.20") == nil)
        let lists = AddressLists(database: database)
        let app = try TestApp(trustedProxies: ["127.0.0.1"], addressLists: lists)
        _ = try app.projectWithLink()
        let hosted = try app.clickWithBeacon(ip: "192.0.2.9")
        let vpn = try app.clickWithBeacon(ip: "198.51.100.200")
        let home = try app.clickWithBeacon(ip: "100.64.3.4")
        try app.settle()
        #expect(try app.store.clicks.find(clickID: hosted)?.ipClass == .hosting)
        let exit = try #require(try app.store.clicks.find(clickID: vpn))
        #expect(exit.ipClass == .vpn && exit.ipKey == nil, "a VPN exit is no match key")
        #expect(try app.store.clicks.find(clickID: home)?.ipClass == .carrierNAT, "the lists answer first")
    }

    /// Linkrunner's iOS body with Play referrer fields in `device_data`, as its Android SDK sends them.
    static func referredInit(token: String, instance: String, clickID: String, installBegin: Int, referrerClick: Int) -> String {
        body("init", token: token, instance: instance).replacingOccurrences(
            of: #""adservices_attribution_token":"tok==""#,
            with:
                #""install_ref":"utm_source=mail&click_id=\#(clickID)","install_begin_timestamp_seconds":\#(installBegin),"referrer_click_timestamp_seconds":\#(referrerClick)"#
        )
    }

    @Test func aClickAfterInstallBeganIsRefusedReportedAndSendsNoPostback() throws {
        let receiver = try WebhookReceiver()
        let app = try TestApp(trustedProxies: ["127.0.0.1"], allowPrivateOutbound: true)
        let (projectID, token) = try app.linkrunnerProject()
        #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/webhooks", json: #"{"url":"\#(receiver.url)"}"#).status == 201)
        let template = try app.request(
            "POST", "/admin/v1/projects/\(projectID)/postbacks",
            json: #"{"network":"mail","trigger":"install","url":"\#(receiver.base)/postback?click={click_id}"}"#)
        #expect(template.status == 201, "\(template.bodyText)")
        let now = Int(Date().timeIntervalSince1970)
        // Injected: the click came two minutes after Play says the install began.
        let injected = try app.clickWithBeacon(ip: "198.51.100.80")
        try app.settle()
        let initialized = try app.client(
            "init", Self.referredInit(token: token, instance: "TQ-1", clickID: injected, installBegin: now - 120, referrerClick: now - 180))
        #expect(initialized.status == 200, "\(initialized.bodyText)")
        #expect((initialized.json?["data"] as? [String: Any])?["attribution_source"] as? String == "ORGANIC", "\(initialized.bodyText)")
        #expect(try app.count("SELECT count(*) FROM installs WHERE rejected_click_id = '\(injected)' AND NOT attributed") == 1)

        // An honest referred install a minute after its own tap keeps its click.
        let honest = try app.clickWithBeacon(ip: "198.51.100.81")
        try app.settle()
        let referred = try app.client(
            "init", Self.referredInit(token: token, instance: "TQ-2", clickID: honest, installBegin: now + 60, referrerClick: now),
            ip: "198.51.100.81")
        #expect((referred.json?["data"] as? [String: Any])?["attribution_source"] as? String == "INORGANIC", "\(referred.bodyText)")

        app.startOutbox()
        _ = receiver.wait(for: 4)
        #expect(try app.waitForOutboxIdle())
        let got = receiver.all
        let postbacks = got.filter { $0.target.hasPrefix("/postback") }
        #expect(postbacks.map(\.target) == ["/postback?click=\(honest)"], "the refused click pays nobody: \(postbacks.map(\.target))")
        let webhooks = got.filter { $0.target == "/hook" }.compactMap(\.json)
        let rejected = webhooks.filter { $0["type"] as? String == "install.rejected" }
        #expect(rejected.count == 1, "\(webhooks.compactMap { $0["type"] })")
        let data = try #require(rejected.first?["data"] as? [String: Any])
        #expect(data["reasons"] as? [String] == ["click_injection"])
        // The install's own webhook carries the reasons too; the honest one, installed seconds after its tap, a flag.
        let created = webhooks.filter { $0["type"] as? String == "install.created" }.compactMap { $0["data"] as? [String: Any] }
        #expect(created.count == 2, "\(created)")
        let refused = try #require(created.first { $0["install_id"] as? String == data["install_id"] as? String })
        #expect(refused["rejected_reasons"] as? [String] == ["click_injection"] && refused["quality_flags"] == nil, "\(refused)")
        let kept = try #require(created.first { $0["install_id"] as? String != data["install_id"] as? String })
        #expect(kept["rejected_reasons"] == nil && kept["quality_flags"] as? [String] == ["short_click_to_install"], "\(kept)")
        #expect((data["attribution"] as? [String: Any])?["attributed"] as? Bool == false)

        let report = try app.request("GET", "/admin/v1/projects/\(projectID)/traffic-quality?since=1h")
        #expect(report.status == 200, "\(report.bodyText)")
        let json = try #require(report.json)
        #expect(json["installs"] as? Int == 2 && json["rejected"] as? Int == 1 && json["rejection_rate"] as? Double == 0.5, "\(json)")
        let reasons = try #require(json["by_reason"] as? [[String: Any]])
        #expect(reasons.first { $0["reason"] as? String == "click_injection" }?["rejected"] as? Int == 1)
        #expect(reasons.first { $0["reason"] as? String == "referrer_time_mismatch" }?["rejected"] as? Int == 0)
        let sources = try #require(json["by_source"] as? [[String: Any]])
        #expect(sources.first?["source"] as? String == "mail" && sources.first?["rejected"] as? Int == 1, "\(sources)")
        let campaigns = try #require(json["by_campaign"] as? [[String: Any]])
        #expect(campaigns.first?["campaign"] as? String == "summer" && campaigns.first?["source"] as? String == "mail", "\(campaigns)")

        // The command line reads the same report from the database.
        let command = try run(["stats", "--project", projectID, "--traffic-quality", "--json"] + app.databaseArguments)
        #expect(command.status == 0, "\(command.stderr)")
        let printed = try #require(try JSONSerialization.jsonObject(with: Data(command.stdout.utf8)) as? [String: Any])
        #expect(printed["rejected"] as? Int == 1 && printed["installs"] as? Int == 2, "\(command.stdout)")
        let table = try run(["stats", "--project", projectID, "--traffic-quality"] + app.databaseArguments)
        #expect(table.stdout.contains("installs 2, rejected 1 (50.00%)"), "\(table.stdout)")
        #expect(table.stdout.contains("click_injection") && table.stdout.contains("mail / summer"), "\(table.stdout)")
    }

    @Test func theDashboardPageShowsTheRejectionsByReasonAndCampaign() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, token) = try app.linkrunnerProject()
        let clickID = try app.clickWithBeacon(ip: "198.51.100.85")
        try app.settle()
        let now = Int(Date().timeIntervalSince1970)
        #expect(
            try app.client(
                "init", Self.referredInit(token: token, instance: "TQ-7", clickID: clickID, installBegin: now - 60, referrerClick: now - 90),
                ip: "198.51.100.85"
            ).status == 200)
        #expect(try app.client("init", body("init", token: token, instance: "TQ-8"), ip: "198.51.100.86").status == 200)
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let page = try browser.get("/projects/\(projectID)/traffic-quality?range=7d")
        #expect(page.status == 200, "\(page.bodyText)")
        let html = page.bodyText
        #expect(html.contains(#"aria-current="page">Traffic quality</a>"#))
        #expect(html.contains("<small>Rejected</small><b>1</b><small>50.0 % of installs</small>"), "\(html)")
        let injection = try #require(html.components(separatedBy: "<tr>").first { $0.contains("<code>click_injection</code>") })
        #expect(injection.contains(#"<td class="n">1</td><td class="n">0</td><td class="n">50.0 %</td>"#), "\(injection)")
        #expect(html.contains(#"<tr><td>mail</td><td>summer</td><td class="n">1</td><td class="n">0</td><td class="n">50.0 %</td></tr>"#), "\(html)")
        #expect(html.contains("No Private Relay list is loaded"))
    }

    @Test func aReferredClickPlayTappedAtAnotherTimeIsRefused() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, token) = try app.linkrunnerProject()
        let clickID = try app.clickWithBeacon(ip: "198.51.100.82")
        try app.settle()
        let now = Int(Date().timeIntervalSince1970)
        let initialized = try app.client(
            "init", Self.referredInit(token: token, instance: "TQ-3", clickID: clickID, installBegin: now + 60, referrerClick: now - 7200),
            ip: "198.51.100.83")
        #expect((initialized.json?["data"] as? [String: Any])?["attribution_source"] as? String == "ORGANIC", "\(initialized.bodyText)")
        let report = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)/traffic-quality").json)
        let reasons = try #require(report["by_reason"] as? [[String: Any]])
        #expect(reasons.first { $0["reason"] as? String == "referrer_time_mismatch" }?["rejected"] as? Int == 1, "\(report)")
    }

    /// `ip-lists update` fetches Apple's list from a fake on loopback, writes it only when it
    /// reads as one, and a server started with it classifies relayed taps.
    @Test func ipListsUpdateFetchesTheRelayListAndKeepsTheLastGoodOne() throws {
        var router = RouterBuilder()
        router.on(.get, "/egress-ip-ranges.csv", RouteHandler.sync { _ in HTTPResponse(status: .ok, body: Array(Self.relayList.utf8)) })
        router.on(.get, "/broken.csv", RouteHandler.sync { _ in HTTPResponse(status: .ok, body: Array("<html>maintenance</html>".utf8)) })
        let apple = try HTTPServer.loopback(router)
        defer { apple.shutdownAndWait() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-relay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("egress-ip-ranges.csv").path
        let environment = [
            "ATTRIBUTIOND_PRIVATE_RELAY_LIST": path, "ATTRIBUTIOND_PRIVATE_RELAY_URL": "http://127.0.0.1:\(apple.port)/egress-ip-ranges.csv",
        ]
        let updated = try run(["ip-lists", "update", "--db", folder.appendingPathComponent("db.sqlite").path], environment: environment)
        #expect(updated.status == 0 && updated.stdout.contains("2 Private Relay prefixes written to \(path)"), "\(updated.stderr)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == Self.relayList)

        let broken = try run(
            ["ip-lists", "update", "--url", "http://127.0.0.1:\(apple.port)/broken.csv", "--db", folder.appendingPathComponent("db.sqlite").path],
            environment: environment)
        #expect(broken.status != 0 && broken.stderr.contains("no prefix"), "\(broken.stderr)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == Self.relayList, "the last good list is kept")
        #expect(!FileManager.default.fileExists(atPath: path + ".partial"))

        // With the daily refresh on, a server whose list is not there yet fetches it before it starts.
        let fresh = folder.appendingPathComponent("fresh.csv").path
        let server = try ServerProcess(
            folder: folder,
            environment: environment.merging(["ATTRIBUTIOND_PRIVATE_RELAY_LIST": fresh, "ATTRIBUTIOND_PRIVATE_RELAY_REFRESH": "true"]) { $1 })
        #expect(server.outputBeforeListening.contains("private relay list fetched"), "\(server.outputBeforeListening)")
        #expect(server.outputBeforeListening.contains(#""private_relay":"2""#))
        #expect(server.terminateAndWait() == 0)
    }

    @Test func theRulesAreAProjectSettingAndBadPlayTimesAreRefusedByName() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, token) = try app.linkrunnerProject()
        let off = try app.request(
            "PATCH", "/admin/v1/projects/\(projectID)",
            json: #"{"traffic_quality":{"click_injection":false,"min_click_to_install_seconds":0,"flood_clicks_per_address_hour":5}}"#)
        #expect(off.status == 200, "\(off.bodyText)")
        let rules = try #require(off.json?["traffic_quality"] as? [String: Any])
        #expect(rules["click_injection"] as? Bool == false && rules["referrer_click_tolerance_seconds"] as? Int == 600)
        #expect(rules["flood_clicks_per_address_hour"] as? Int == 5 && rules["carrier_nat_needs_device_signal"] as? Bool == false)
        let unknown = try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"traffic_quality":{"clicks":1}}"#)
        #expect(unknown.status == 422 && unknown.bodyText.contains("traffic_quality.clicks"), "\(unknown.bodyText)")
        let range = try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"traffic_quality":{"min_click_to_install_seconds":-1}}"#)
        #expect(range.status == 400 || range.status == 422, "\(range.bodyText)")
        #expect(range.bodyText.contains("min_click_to_install_seconds"))

        // With the rule off, the same injected click wins.
        let clickID = try app.clickWithBeacon(ip: "198.51.100.84")
        try app.settle()
        let now = Int(Date().timeIntervalSince1970)
        let initialized = try app.client(
            "init", Self.referredInit(token: token, instance: "TQ-4", clickID: clickID, installBegin: now - 120, referrerClick: now - 1))
        #expect((initialized.json?["data"] as? [String: Any])?["attribution_source"] as? String == "INORGANIC", "\(initialized.bodyText)")

        let bad = try app.client(
            "init",
            body("init", token: token, instance: "TQ-5").replacingOccurrences(
                of: #""adservices_attribution_token":"tok==""#, with: #""install_begin_timestamp_seconds":-5"#))
        #expect((bad.status == 400 || bad.status == 422) && bad.bodyText.contains("install_begin_timestamp_seconds"), "\(bad.bodyText)")
    }
}
