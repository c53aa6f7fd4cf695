import Foundation
import HTTP

/// What a simulation measured: raw counts, the metrics computed from them, and calibration.
public struct AccuracyReport: Sendable {
    public struct Counts: Sendable, Equatable {
        /// Installs reported.
        public var installs = 0
        /// Installs whose person clicked within the attribution window before installing: the
        /// installs a perfect engine would attribute.
        public var clickedInstalls = 0
        /// Clicked installs whose click some signal the server receives could reach: a click id
        /// the install carries (the Play referrer), or a click made from the install's address.
        /// The rest changed networks between tap and install with nothing to carry the click over.
        public var reachableInstalls = 0
        /// In-app opens of installed apps (app-side clicks, never any install's click).
        public var appOpens = 0
        /// Installs the engine attributed to a click.
        public var attributed = 0
        /// Attributed to one of the installing person's own clicks.
        public var truePositives = 0
        /// Attributed to somebody else's click (or an organic install attributed at all).
        public var falsePositives = 0
        /// Clicked installs not attributed to their person's click.
        public var falseNegatives = 0
        public var deterministic = 0
        public var probabilistic = 0
        public var clicks = 0
        public var botClicks = 0
    }

    /// Attributed installs whose click fell in one decay band (or the deterministic tier).
    public struct Band: Sendable, Equatable {
        public var name: String
        /// The band's confidence before the per-candidate penalty.
        public var bandConfidence: Double
        public var matches = 0
        public var correct = 0
        public var confidenceSum = 0.0

        public var meanConfidence: Double { matches == 0 ? 0 : confidenceSum / Double(matches) }
        public var observedPrecision: Double { matches == 0 ? 0 : Double(correct) / Double(matches) }
    }

    public var seed: UInt64
    public var model: PopulationModel
    public var minConfidence: Double
    public var attributionWindowHours: Int
    public var counts = Counts()
    /// Relay taps and fraud, with the traffic-quality knobs (docs/traffic-quality.md).
    public struct TrafficCounts: Sendable, Equatable {
        public var relayedTaps = 0
        /// Installs with a relayed tap of their person in the window, and those attributed to it.
        public var relayedInstalls = 0
        public var matchedByRelayTap = 0
        /// Installs attributed to a relayed tap, and those to their own person's: the relay band's calibration.
        public var relayMatches = 0
        public var relayMatchesCorrect = 0
        public var injectedClicks = 0
        /// Injected clicks that became an install's attribution, and those refused.
        public var injectedWon = 0
        public var injectedRefused = 0
        /// Installs whose refused click was their person's own: honest installs rejected.
        public var honestRejected = 0
        /// Flood clicks, installs one of them won, and installs whose winner was one, refused.
        public var floodClicks = 0
        public var floodWon = 0
        public var floodRefused = 0
        public var rejections: [String: Int] = [:]
    }
    public var traffic = TrafficCounts()
    public var bands: [Band] = [
        Band(name: "deterministic", bandConfidence: 1.0), Band(name: "under 1 h", bandConfidence: 0.85),
        Band(name: "1 h to 24 h", bandConfidence: 0.65), Band(name: "24 h to 72 h", bandConfidence: 0.40),
    ]

    /// TP / (TP + FP); 0 when nothing was attributed.
    public var precision: Double { ratio(counts.truePositives, counts.truePositives + counts.falsePositives) }
    /// TP / (TP + FN); 0 when no install followed a click.
    public var recall: Double { ratio(counts.truePositives, counts.truePositives + counts.falseNegatives) }
    public var f1: Double { precision + recall == 0 ? 0 : 2 * precision * recall / (precision + recall) }
    /// The recall a perfect engine could reach on what the server receives: reachable / clicked.
    public var recallCeiling: Double { ratio(counts.reachableInstalls, counts.clickedInstalls) }
    /// Recall as a share of that ceiling.
    public var recallOfCeiling: Double { recallCeiling == 0 ? 0 : recall / recallCeiling }

    private func ratio(_ part: Int, _ whole: Int) -> Double { whole == 0 ? 0 : Double(part) / Double(whole) }

    public var json: String {
        func number(_ value: Double) -> JSONValue { .number((value * 10_000).rounded() / 10_000) }
        func integer(_ value: Int) -> JSONValue { .number(Double(value)) }
        let c = counts
        var fields: [String: JSONValue] = [
            "seed": .number(Double(seed)),
            "settings": .object(["min_confidence": number(minConfidence), "attribution_window_hours": integer(attributionWindowHours)]),
            "population": .object(Dictionary(uniqueKeysWithValues: model.knobs.map { ($0.0, number($0.1)) })),
            "counts": .object([
                "installs": integer(c.installs), "clicked_installs": integer(c.clickedInstalls), "attributed": integer(c.attributed),
                "true_positives": integer(c.truePositives), "false_positives": integer(c.falsePositives),
                "false_negatives": integer(c.falseNegatives), "deterministic": integer(c.deterministic),
                "probabilistic": integer(c.probabilistic), "clicks": integer(c.clicks), "bot_clicks": integer(c.botClicks),
                "reachable_installs": integer(c.reachableInstalls), "app_opens": integer(c.appOpens),
            ]),
            "precision": number(precision), "recall": number(recall), "f1": number(f1),
            "recall_ceiling": number(recallCeiling), "recall_of_ceiling": number(recallOfCeiling),
            "calibration": .array(
                bands.map { band in
                    .object([
                        "band": .string(band.name), "band_confidence": number(band.bandConfidence), "matches": integer(band.matches),
                        "correct": integer(band.correct), "mean_confidence": number(band.meanConfidence),
                        "observed_precision": number(band.observedPrecision),
                    ])
                }),
        ]
        if model.hasTrafficQuality { fields["traffic_quality"] = trafficJSON }
        return String(decoding: JSONValue.object(fields).serialized(), as: UTF8.self)
    }

    /// Shares of injected clicks that never won and of honest clicked installs rejected.
    var injectedNeverWon: Double { traffic.injectedClicks == 0 ? 1 : 1 - ratio(traffic.injectedWon, traffic.injectedClicks) }
    var honestRejectedShare: Double { ratio(traffic.honestRejected, counts.clickedInstalls) }

    var trafficJSON: JSONValue {
        func number(_ value: Double) -> JSONValue { .number((value * 10_000).rounded() / 10_000) }
        func integer(_ value: Int) -> JSONValue { .number(Double(value)) }
        let t = traffic
        return .object([
            "relayed_taps": integer(t.relayedTaps), "relayed_installs": integer(t.relayedInstalls),
            "matched_by_relay_tap": integer(t.matchedByRelayTap), "relay_matches": integer(t.relayMatches),
            "relay_matches_correct": integer(t.relayMatchesCorrect), "injected_clicks": integer(t.injectedClicks),
            "injected_won": integer(t.injectedWon), "injected_refused": integer(t.injectedRefused),
            "injected_never_won": number(injectedNeverWon), "honest_rejected": integer(t.honestRejected),
            "honest_rejected_share": number(honestRejectedShare), "flood_clicks": integer(t.floodClicks),
            "flood_won": integer(t.floodWon), "flood_refused": integer(t.floodRefused),
            "rejections": .object(t.rejections.mapValues { integer($0) }),
        ])
    }

    public var text: String {
        func percent(_ value: Double) -> String { String(format: "%5.1f%%", value * 100) }
        let c = counts
        var lines = [
            "attributiond simulate — seed \(seed), \(model.users) people over \(model.days) days; min_confidence \(minConfidence), window \(attributionWindowHours) h",
            "",
            "installs \(c.installs) (after a click: \(c.clickedInstalls), reachable: \(c.reachableInstalls)), clicks \(c.clicks) (+ \(c.botClicks) from bots), in-app opens \(c.appOpens)",
            "attributed \(c.attributed) (deterministic \(c.deterministic), probabilistic \(c.probabilistic))",
            "true positives \(c.truePositives), false positives \(c.falsePositives), false negatives \(c.falseNegatives)",
            "",
            "precision \(percent(precision))   recall \(percent(recall))   F1 \(percent(f1))",
            "recall ceiling \(percent(recallCeiling))   recall of ceiling \(percent(recallOfCeiling))",
            "",
            "calibration (attributed installs by the age of their click)",
            "  band            band conf.  matches  mean reported  observed precision",
        ]
        for band in bands {
            lines.append(
                "  " + band.name.padding(toLength: 14, withPad: " ", startingAt: 0)
                    + String(format: "  %9.2f  %7d  %13.3f  ", band.bandConfidence, band.matches, band.meanConfidence)
                    + String(repeating: " ", count: 12) + (band.matches == 0 ? "     —" : percent(band.observedPrecision)))
        }
        return lines.joined(separator: "\n")
    }
}
