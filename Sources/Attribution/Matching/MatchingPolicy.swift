/// Every constant of the matching engine, in one place (docs/matching.md). A project uses
/// the defaults unless it overrides them.
public struct MatchingPolicy: Sendable, Equatable {
    public struct DecayStep: Sendable, Equatable {
        /// Clicks strictly younger than this many seconds get `confidence`.
        public var underSeconds: Int64
        public var confidence: Double
        public init(underSeconds: Int64, confidence: Double) {
            self.underSeconds = underSeconds
            self.confidence = confidence
        }
    }

    /// Boundaries are exclusive: a click exactly one hour old gets 0.65.
    public var decay: [DecayStep] = [
        DecayStep(underSeconds: 3_600, confidence: 0.85),
        DecayStep(underSeconds: 86_400, confidence: 0.65),
        DecayStep(underSeconds: 259_200, confidence: 0.40),
    ]
    /// Subtracted per distinct candidate beyond the first.
    public var candidatePenalty = 0.15
    /// Attributed when the confidence reaches this (the project's `min_confidence`).
    public var minConfidence = 0.50
    /// Probabilistic candidates are never older than this, whatever the link's window.
    public var probabilisticHorizonSeconds: Int64 = 259_200
    /// The attribution window when a link sets none (the project's `attribution_window_hours`).
    public var defaultWindowHours = 168
    /// The most candidate clicks read for one install (newest first).
    public var maxCandidates = 200
    /// LinkForty's SDK reports an install on every start: the same signals within this many
    /// seconds are the same install.
    public var sameInstallSeconds: Int64 = 86_400
    /// A Private Relay tap is a candidate for this long before the install: its region is shared
    /// by many, and over twenty simulated populations with 30% of iPhone taps relayed, relay
    /// matches were right 95% of the time within 5 minutes, 94% within 15 and 89% within an hour
    /// (docs/traffic-quality.md, "How well it works").
    public var relayWindowSeconds: Int64 = 300
    /// The most a Private Relay tap may score (region, screen and time zone agree, never the
    /// address): below the 1-to-24-hour band, whose matches were right 98% of the time to the
    /// relay's 95%.
    public var relayConfidence = 0.6
    /// The project's fraud rules.
    public var rules = TrafficQualityRules()

    public init() {}

    public init(project: ProjectSettings) {
        self.init()
        minConfidence = project.minConfidence
        defaultWindowHours = project.attributionWindowHours
        if let steps = project.matching?.decay {
            decay = steps
            // A click older than the last step can never score, so it is never a candidate.
            probabilisticHorizonSeconds = steps.last?.underSeconds ?? probabilisticHorizonSeconds
        }
        if let penalty = project.matching?.candidatePenalty { candidatePenalty = penalty }
        rules = project.trafficQuality
    }

    /// The most a match may score when its click shares neither a screen nor a time zone with
    /// the install: IP, platform, OS version and language are what every phone of a household,
    /// an office or a carrier NAT has in common. The second band (0.65 by default), whatever
    /// the click's age.
    public var confidenceWithoutDeviceSignals: Double {
        decay.count > 1 ? decay[1].confidence : decay.first?.confidence ?? 0
    }

    /// The confidence for a click `age` seconds before the install, before the penalty.
    public func baseConfidence(ageSeconds: Double) -> Double? {
        decay.first { ageSeconds < Double($0.underSeconds) }?.confidence
    }
}
