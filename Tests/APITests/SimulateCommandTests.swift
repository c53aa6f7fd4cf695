import Foundation
@_spi(StoreInternals) import Store
import Testing

@Suite struct SimulateCommandTests {
    /// Relay taps and injected clicks, with their own figures; the default report has neither.
    @Test func theTrafficQualityKnobsReportRelayMatchesAndRefusedInjections() throws {
        let plain = try run(["simulate", "--seed", "3", "--users", "600", "--json"])
        #expect(!plain.stdout.contains("traffic_quality") && !plain.stdout.contains("private_relay_share"))
        let result = try run([
            "simulate", "--seed", "3", "--users", "600", "--private-relay-share", "0.5", "--injected-click-share", "0.5", "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let population = try #require(report["population"] as? [String: Any])
        #expect(population["private_relay_share"] as? Double == 0.5 && population["injected_click_share"] as? Double == 0.5)
        let traffic = try #require(report["traffic_quality"] as? [String: Any])
        let injected = try #require(traffic["injected_clicks"] as? Int)
        let refused = try #require(traffic["injected_refused"] as? Int)
        let won = try #require(traffic["injected_won"] as? Int)
        #expect(injected > 0 && refused > 0 && won + refused <= injected, "\(traffic)")
        #expect((traffic["rejections"] as? [String: Int])?["click_injection"] ?? 0 >= refused)
        #expect(abs((traffic["injected_never_won"] as? Double ?? 0) - (1 - Double(won) / Double(injected))) < 0.0001)
        let relayMatches = try #require(traffic["relay_matches"] as? Int)
        #expect((traffic["relayed_taps"] as? Int ?? 0) > 0 && relayMatches > 0, "\(traffic)")
        #expect((traffic["relay_matches_correct"] as? Int ?? .max) <= relayMatches)
        #expect(traffic["honest_rejected"] as? Int == 0, "\(traffic)")
        let bad = try run(["simulate", "--private-relay-share", "2"])
        #expect(bad.status != 0 && bad.stderr.contains("--private-relay-share"), "\(bad.stderr)")
    }

    @Test func seedOneJSONHasItsShapeAndMetricsFollowFromItsCounts() throws {
        let result = try run(["simulate", "--seed", "1", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "no progress bar when stderr is not a terminal: \(result.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(report["seed"] as? Int == 1)
        let settings = try #require(report["settings"] as? [String: Any])
        #expect(settings["min_confidence"] as? Double == 0.5 && settings["attribution_window_hours"] as? Int == 168)
        let population = try #require(report["population"] as? [String: Any])
        for knob in [
            "users", "click_share", "household_share", "carrier_nat_share", "popular_device_share", "ip_change_share",
            "repeat_click_share", "bot_clicks_per_click", "ios_share", "linkrunner_share", "delay_median_minutes",
        ] {
            #expect(population[knob] is Double || population[knob] is Int, "population.\(knob)")
        }

        let counts = try #require(report["counts"] as? [String: Int])
        let tp = try #require(counts["true_positives"])
        let fp = try #require(counts["false_positives"])
        let fn = try #require(counts["false_negatives"])
        let attributed = try #require(counts["attributed"])
        #expect(tp > 0 && counts["installs"]! >= counts["clicked_installs"]! && counts["clicked_installs"]! > 0)
        #expect(tp + fp == attributed)
        #expect(counts["deterministic"]! + counts["probabilistic"]! == attributed)
        #expect(tp + fn == counts["clicked_installs"]!, "every install after a click is a TP or an FN")
        // The ceiling: clicked installs some signal could reach, and the population's in-app opens.
        let reachable = try #require(counts["reachable_installs"])
        #expect(reachable > 0 && reachable <= counts["clicked_installs"]! && tp <= reachable, "a match needs a click some signal reaches")
        #expect(counts["app_opens"]! > 0, "the default population opens links inside installed apps")
        let ceiling = try #require(report["recall_ceiling"] as? Double)
        #expect(abs(ceiling - Double(reachable) / Double(counts["clicked_installs"]!)) < 0.0001)
        #expect(abs((report["recall_of_ceiling"] as? Double ?? 0) - (report["recall"] as? Double ?? 0) / ceiling) < 0.001)

        let precision = try #require(report["precision"] as? Double)
        let recall = try #require(report["recall"] as? Double)
        let f1 = try #require(report["f1"] as? Double)
        for metric in [precision, recall, f1] { #expect((0...1).contains(metric)) }
        #expect(abs(precision - Double(tp) / Double(tp + fp)) < 0.0001)
        #expect(abs(recall - Double(tp) / Double(tp + fn)) < 0.0001)
        #expect(abs(f1 - 2 * Double(tp) / Double(2 * tp + fp + fn)) < 0.0001)

        let bands = try #require(report["calibration"] as? [[String: Any]])
        #expect(bands.map { $0["band"] as? String } == ["deterministic", "under 1 h", "1 h to 24 h", "24 h to 72 h"])
        #expect(bands.compactMap { $0["matches"] as? Int }.reduce(0, +) == attributed)
        #expect(bands.compactMap { $0["correct"] as? Int }.reduce(0, +) == tp)
        for band in bands {
            let matches = band["matches"] as? Int ?? 0
            let correct = band["correct"] as? Int ?? 0
            let observed = try #require(band["observed_precision"] as? Double)
            #expect(abs(observed - (matches == 0 ? 0 : Double(correct) / Double(matches))) < 0.0001)
        }

        // The same seed gives the same run; another seed another population.
        #expect(try run(["simulate", "--seed", "1", "--json"]).stdout == result.stdout)
        #expect(try run(["simulate", "--seed", "2", "--json"]).stdout != result.stdout)
    }

    @Test func badKnobsAreRefusedNamingTheFlag() throws {
        let result = try run(["simulate", "--click-share", "1.5"])
        #expect(result.status == 64 || result.status == 2, "\(result.status)")
        #expect(result.stderr.contains("--click-share"), "\(result.stderr)")
        #expect(try run(["simulate", "--min-confidence", "2"]).stderr.contains("--min-confidence"))
    }

    /// `--app-events` adds the apps' events without changing the report; `--database` keeps the
    /// database, whose events are charted over the days after each install, and will not write
    /// over a file that exists.
    @Test func appEventsLandInTheKeptDatabaseAndLeaveTheReportAsItWas() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-sim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("campaign.sqlite").path
        let plain = try run(["simulate", "--users", "400", "--json"])
        let withEvents = try run(["simulate", "--users", "400", "--json", "--app-events", "--database", path])
        #expect(withEvents.status == 0, "\(withEvents.stderr)")
        #expect(withEvents.stdout == plain.stdout)

        let database = try Database(path: path)
        let (events, names, revenue, days, installs) = try database.read { connection in
            try connection.queryOne(
                """
                SELECT count(*), group_concat(DISTINCT name), sum(revenue), count(DISTINCT charted_at / 86400000),
                       (SELECT count(*) FROM installs) FROM events
                """
            ) { row in (row.int(0), row.string(1), row.optionalDouble(2) ?? 0, row.int(3), row.int(4)) }!
        }
        #expect(installs > 50 && events > installs, "\(events) events for \(installs) installs")
        #expect(Set(names.split(separator: ",").map(String.init)) == ["open", "signup", "purchase"])
        #expect(revenue > 0 && days >= 14, "revenue \(revenue) over \(days) days")
        // Every event charted between its install and 15 days after it (purchases within 11).
        let outside = try database.read { connection in
            try connection.queryOne(
                "SELECT count(*) FROM events e JOIN installs i ON i.id = e.install_id WHERE e.charted_at < i.created_at OR e.charted_at > i.created_at + 15 * 86400000"
            ) { $0.int(0) }!
        }
        #expect(outside == 0)

        let again = try run(["simulate", "--users", "400", "--database", path])
        #expect(again.status != 0 && again.stderr.contains("already exists"), "\(again.stderr)")
    }
}
