import JSON

/// What a conversion value Apple reported stands for under the project's own SKAN schema: the
/// events it says happened, the revenue range it says was reached, and which bits or which rule
/// say so. The inverse of `SKANEvaluator` for one value.
public struct SKANDecodedValue: Sendable, Equatable {
    /// Events the value says happened at least once.
    public var events: [String] = []
    /// Revenue in the schema's base currency: at least `revenueAtLeast`, below `revenueBelow`.
    public var revenueAtLeast: Double?
    public var revenueBelow: Double?
    /// One line per bit range or rule that decided the value.
    public var explanation: [String] = []

    public init() {}
}

public enum SKANValueDecoder {
    /// The fine value of window `sequenceIndex` (0–2) decoded through `schema`; nil when the
    /// window has no fine rules.
    public static func decode(fine value: Int, sequenceIndex: Int, schema: SKANSchema) -> SKANDecodedValue? {
        guard schema.windows.indices.contains(sequenceIndex), let fine = schema.windows[sequenceIndex].fine else { return nil }
        var decoded = SKANDecodedValue()
        switch fine {
        case .bitfield(let segments):
            for segment in segments { decodeSegment(segment, value: value, into: &decoded) }
        case .rules(let rules):
            let held = rules.filter { $0.value == value }
            if held.isEmpty {
                decoded.explanation.append(value == 0 ? "no rule held" : "no rule gives \(value)")
            }
            for (index, rule) in held.enumerated() {
                decoded.explanation.append("rule \(value)\(held.count > 1 ? " (\(index + 1))" : ""): " + describe(rule.all, joiner: " and "))
                for condition in rule.all { apply(condition, to: &decoded) }
            }
        case .funnel(let steps):
            guard let reached = steps.firstIndex(where: { $0.value == value }) else {
                decoded.explanation.append(value == 0 ? "no funnel step reached" : "no funnel step gives \(value)")
                return decoded
            }
            decoded.events = steps[...reached].map(\.event)
            decoded.explanation.append("funnel step \(reached + 1) of \(steps.count): \(steps[reached].event)")
        }
        return decoded
    }

    /// Which of window `sequenceIndex`'s coarse rules gives `coarse`: the first rule with that
    /// value, or the window's default.
    public static func decode(coarse: SKANSchema.Coarse, sequenceIndex: Int, schema: SKANSchema) -> SKANDecodedValue? {
        guard schema.windows.indices.contains(sequenceIndex) else { return nil }
        let window = schema.windows[sequenceIndex]
        var decoded = SKANDecodedValue()
        if let (index, rule) = window.coarseRules.enumerated().first(where: { $0.element.value == coarse }) {
            decoded.explanation.append("coarse rule \(index + 1) (\(coarse.rawValue)): any of " + describe(rule.any, joiner: ", "))
            if rule.any.count == 1, let only = rule.any.first { apply(only, to: &decoded) }
        } else if window.coarseDefault == coarse {
            decoded.explanation.append("the window's default (\(coarse.rawValue)): no coarse rule held")
        } else {
            decoded.explanation.append("no coarse rule of this window gives \(coarse.rawValue)")
        }
        return decoded
    }

    static func decodeSegment(_ segment: SKANSchema.Segment, value: Int, into decoded: inout SKANDecodedValue) {
        switch segment {
        case .eventFlag(let offset, let event):
            let set = value >> offset & 1 == 1
            if set { decoded.events.append(event) }
            decoded.explanation.append("bit \(offset) (\(event)): \(set ? "yes" : "no")")
        case .revenueBucket(let offset, let width, let edges):
            let (bucket, atLeast, below) = range(of: value, offset: offset, width: width, edges: edges)
            decoded.revenueAtLeast = atLeast
            decoded.revenueBelow = below
            decoded.explanation.append("bits \(bits(offset, width)) (revenue) = \(bucket): \(describe(atLeast, below, unit: "revenue"))")
        case .countBucket(let offset, let width, let event, let edges):
            let (bucket, atLeast, below) = range(of: value, offset: offset, width: width, edges: edges)
            if (atLeast ?? 0) >= 1 { decoded.events.append(event) }
            decoded.explanation.append(
                "bits \(bits(offset, width)) (\(event) count) = \(bucket): \(describe(atLeast, below, unit: "\(event) count"))")
        }
    }

    /// The bucket a value's bits hold and the range it stands for: bucket b counts the edges at
    /// or below the amount, the top bucket also holds everything above.
    static func range(of value: Int, offset: Int, width: Int, edges: [Double]) -> (bucket: Int, atLeast: Double?, below: Double?) {
        let top = (1 << width) - 1
        let bucket = value >> offset & top
        let atLeast = bucket == 0 ? nil : edges[min(bucket, edges.count) - 1]
        let below = bucket < top && bucket < edges.count ? edges[bucket] : nil
        return (bucket, atLeast, below)
    }

    static func bits(_ offset: Int, _ width: Int) -> String { width == 1 ? "\(offset)" : "\(offset)–\(offset + width - 1)" }

    static func apply(_ condition: SKANSchema.Condition, to decoded: inout SKANDecodedValue) {
        switch condition {
        case .event(let name, let atLeast, _):
            if (atLeast ?? 1) >= 1, !decoded.events.contains(name) { decoded.events.append(name) }
        case .revenue(let atLeast, let below):
            if let atLeast { decoded.revenueAtLeast = max(decoded.revenueAtLeast ?? atLeast, atLeast) }
            if let below { decoded.revenueBelow = min(decoded.revenueBelow ?? below, below) }
        case .afterHours: break
        }
    }

    static func describe(_ conditions: [SKANSchema.Condition], joiner: String) -> String {
        conditions.map { condition in
            switch condition {
            case .event(let name, nil, nil): return name
            case .event(let name, let atLeast, let atMost):
                return [atLeast.map { "\(name) ≥ \($0)" }, atMost.map { "\(name) ≤ \($0)" }].compactMap { $0 }.joined(separator: " and ")
            case .revenue(let atLeast, let below): return describe(atLeast, below, unit: "revenue")
            case .afterHours(let hours): return "after \(format(hours)) h"
            }
        }.joined(separator: joiner)
    }

    static func describe(_ atLeast: Double?, _ below: Double?, unit: String) -> String {
        switch (atLeast, below) {
        case (nil, nil): return "any \(unit)"
        case (nil, let below?): return "\(unit) < \(format(below))"
        case (let atLeast?, nil): return "\(unit) ≥ \(format(atLeast))"
        case (let atLeast?, let below?): return "\(unit) ≥ \(format(atLeast)) and < \(format(below))"
        }
    }

    static func format(_ number: Double) -> String {
        number.decimalText
    }
}
