/// One thing an install did that SKAN rules can count.
public struct SKANEvent: Sendable, Equatable {
    public var name: String
    public var receivedAt: Timestamp
    /// Revenue carried by the event (a payment's amount, an event's `amount`/`revenue`).
    public var amount: Double?
    public var currency: String?

    public init(name: String, receivedAt: Timestamp, amount: Double? = nil, currency: String? = nil) {
        self.name = name
        self.receivedAt = receivedAt
        self.amount = amount
        self.currency = currency
    }
}

/// What was last returned in one postback window (stored per install and window).
public struct SKANWindowState: Sendable, Equatable {
    public var fine: Int?
    public var coarse: SKANSchema.Coarse?
    public var locked = false

    public init(fine: Int? = nil, coarse: SKANSchema.Coarse? = nil, locked: Bool = false) {
        self.fine = fine
        self.coarse = coarse
        self.locked = locked
    }
}

public struct SKANValues: Sendable, Equatable {
    public var fine: Int
    public var coarse: SKANSchema.Coarse
    public var lock: Bool
    /// 1, 2 or 3.
    public var window: Int

    public init(fine: Int, coarse: SKANSchema.Coarse, lock: Bool, window: Int) {
        self.fine = fine
        self.coarse = coarse
        self.lock = lock
        self.window = window
    }
}

/// The evaluation order of skan.md, as a pure function: history and stored state in, values and
/// new state out. Callers serialise the calls of one install and store the state with the event.
public enum SKANEvaluator {
    /// Window bounds in hours: W1 [0, 48), W2 [48, 168), W3 [168, 840).
    public static let windowEnds: [Double] = [48, 168, 840]

    public struct Outcome: Sendable, Equatable {
        /// nil: send no SKAN keys at all.
        public var values: SKANValues?
        /// State by window (1…3) to store.
        public var state: [Int: SKANWindowState]
        /// Currencies of counted events with no `fx` rate: their amounts were left out (log it).
        public var unknownCurrencies: Set<String> = []
    }

    public static func evaluate(
        schema: SKANSchema?, isIOS: Bool, firstInit: Timestamp, now: Timestamp, events: [SKANEvent],
        state: [Int: SKANWindowState]
    ) -> Outcome {
        guard let schema, schema.enabled, isIOS else { return Outcome(values: nil, state: state) }
        let hours = Double(now.milliseconds - firstInit.milliseconds) / 3_600_000
        guard hours < windowEnds[2] else { return Outcome(values: nil, state: state) }
        let windowIndex = hours < windowEnds[0] ? 0 : hours < windowEnds[1] ? 1 : 2
        let window = schema.windows[windowIndex]
        var newState = state
        var current = state[windowIndex + 1] ?? SKANWindowState()

        // A locked window repeats what it returned when it locked.
        if current.locked, let fine = current.fine, let coarse = current.coarse {
            return Outcome(values: SKANValues(fine: fine, coarse: coarse, lock: true, window: windowIndex + 1), state: state)
        }

        let windowStart = windowIndex == 0 ? 0 : windowEnds[windowIndex - 1]
        let inScope = events.filter { event in
            let at = Double(event.receivedAt.milliseconds - firstInit.milliseconds) / 3_600_000
            return at <= hours && (window.cumulative || at >= windowStart)
        }
        let facts = Facts(events: inScope, schema: schema, hours: hours)

        // Fine: computed in W1; W2 and W3 repeat W1's last (0 if none).
        var fine: Int
        if windowIndex == 0 {
            fine = window.fine.map { facts.fine($0) } ?? 0
            if schema.monotonic, let last = current.fine { fine = max(fine, last) }
        } else {
            fine = state[1]?.fine ?? 0
        }

        var coarse = window.coarseRules.first { rule in rule.any.contains { facts.holds($0) } }?.value ?? window.coarseDefault
        if schema.monotonic, let last = current.coarse { coarse = max(coarse, last) }
        let lock = window.lock.contains { facts.holds($0) }

        current.fine = fine
        current.coarse = coarse
        current.locked = lock
        newState[windowIndex + 1] = current
        return Outcome(
            values: SKANValues(fine: fine, coarse: coarse, lock: lock, window: windowIndex + 1), state: newState,
            unknownCurrencies: facts.unknownCurrencies)
    }

    /// What the events in scope amount to.
    struct Facts {
        var counts: [String: Int] = [:]
        var revenue = 0.0
        var unknownCurrencies: Set<String> = []
        let hours: Double

        init(events: [SKANEvent], schema: SKANSchema, hours: Double) {
            self.hours = hours
            for event in events {
                counts[event.name, default: 0] += 1
                guard let amount = event.amount, amount.isFinite else { continue }
                let currency = event.currency ?? schema.baseCurrency
                // An unknown currency counts the event but not its amount.
                if currency == schema.baseCurrency {
                    revenue += amount
                } else if let rate = schema.fx[currency] {
                    revenue += amount * rate
                } else {
                    unknownCurrencies.insert(currency)
                }
            }
            // Rounded to micro-units against float noise; beyond 10^12 the product would overflow to
            // infinity, and infinity fails `revenue < .infinity`.
            if abs(revenue) < 1e12 { revenue = (revenue * 1_000_000).rounded() / 1_000_000 }
        }

        func holds(_ condition: SKANSchema.Condition) -> Bool {
            switch condition {
            case .event(let name, let atLeast, let atMost):
                let count = counts[name] ?? 0
                if atLeast == nil && atMost == nil { return count >= 1 }
                return count >= (atLeast ?? 0) && count <= (atMost ?? .max)
            case .revenue(let atLeast, let below):
                return revenue >= (atLeast ?? -.infinity) && revenue < (below ?? .infinity)
            case .afterHours(let after):
                return hours >= after
            }
        }

        func fine(_ fine: SKANSchema.Fine) -> Int {
            switch fine {
            case .bitfield(let segments):
                var value = 0
                for segment in segments {
                    switch segment {
                    case .revenueBucket(let offset, let width, let edges):
                        value |= min(edges.filter { $0 <= revenue }.count, (1 << width) - 1) << offset
                    case .eventFlag(let offset, let event):
                        if (counts[event] ?? 0) > 0 { value |= 1 << offset }
                    case .countBucket(let offset, let width, let event, let edges):
                        let count = Double(counts[event] ?? 0)
                        value |= min(edges.filter { $0 <= count }.count, (1 << width) - 1) << offset
                    }
                }
                return value & 63
            case .rules(let rules):
                return rules.filter { $0.all.allSatisfy(holds) }.map(\.value).max() ?? 0
            case .funnel(let steps):
                var reached = 0
                for step in steps {
                    guard (counts[step.event] ?? 0) > 0 else { break }
                    reached = step.value
                }
                return reached
            }
        }
    }
}
