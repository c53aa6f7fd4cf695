import Foundation
import Testing

@testable import Attribution

/// The schema of docs/skan.md, verbatim.
let specSchemaJSON = #"""
    { "enabled": true, "base_currency": "USD", "fx": {"EUR": 1.10, "INR": 0.012},
      "monotonic": true,
      "windows": {
        "w1": { "aggregation": "window",
                "fine": { "mode": "bitfield", "segments": [
                  {"type": "revenue_bucket", "offset": 0, "width": 3, "edges": [0.01, 5, 10, 25, 50, 100, 200]},
                  {"type": "event_flag", "offset": 3, "event": "signup"},
                  {"type": "event_flag", "offset": 4, "event": "purchase"},
                  {"type": "event_flag", "offset": 5, "event": "subscribe"} ] },
                "coarse": { "rules": [ {"value": "high", "any": [{"event": "subscribe"}, {"revenue_gte": 25}]},
                                       {"value": "medium", "any": [{"event": "signup"}, {"event": "purchase"}]} ],
                            "default": "low" },
                "lock": { "any": [{"event": "subscribe"}] } },
        "w2": { "coarse": { "rules": [ {"value": "high", "any": [{"revenue_gte": 20}]},
                                       {"value": "medium", "any": [{"event": "purchase"}, {"event": "level_complete", "count_gte": 3}]} ],
                            "default": "low" } },
        "w3": { "coarse": { "rules": [ {"value": "high", "any": [{"revenue_gte": 50}]},
                                       {"value": "medium", "any": [{"event": "purchase"}]} ], "default": "low" } } } }
    """#

private let firstInit = Timestamp(milliseconds: 1_763_700_000_000)
private func at(_ hours: Double) -> Timestamp { Timestamp(milliseconds: firstInit.milliseconds + Int64((hours * 3_600_000).rounded())) }

/// One call of the app: an event happens (or a payment is removed), and the response carries values.
private struct Step: Sendable {
    var hours: Double
    var event: SKANEvent?
    var removes: Int? = nil  // index of an earlier step whose payment is removed
    static func call(_ hours: Double) -> Step { Step(hours: hours, event: nil) }
    static func event(_ name: String, _ hours: Double, _ amount: Double? = nil, _ currency: String? = nil) -> Step {
        Step(hours: hours, event: SKANEvent(name: name, receivedAt: at(hours), amount: amount, currency: currency))
    }
}

private struct Vector: CustomTestStringConvertible, Sendable {
    let number: String
    var schema: Bool = true
    var iOS: Bool = true
    var priorW1Fine: Int? = nil
    let steps: [Step]
    /// Expected values of the last `expected.count` calls (nil: no SKAN keys).
    let expected: [SKANValues?]
    var testDescription: String { "skan.md vector #\(number)" }
}

private func v(_ fine: Int, _ coarse: SKANSchema.Coarse, _ lock: Bool, _ window: Int) -> SKANValues {
    SKANValues(fine: fine, coarse: coarse, lock: lock, window: window)
}

private let vectors: [Vector] = [
    Vector(number: "1", schema: false, steps: [.event("purchase", 1, 50)], expected: [nil]),
    Vector(number: "2", iOS: false, steps: [.event("purchase", 1, 50)], expected: [nil]),
    Vector(number: "3", steps: [.call(0)], expected: [v(0, .low, false, 1)]),
    Vector(number: "4", steps: [.event("signup", 1)], expected: [v(8, .medium, false, 1)]),
    Vector(number: "5", steps: [.event("signup", 1), .event("purchase", 5, 12)], expected: [v(27, .medium, false, 1)]),
    Vector(number: "6", steps: [.event("purchase", 1, 1000, "INR"), .event("purchase", 3, 20, "EUR")], expected: [v(20, .high, false, 1)]),
    Vector(number: "7", steps: [.event("purchase", 1, 30), Step(hours: 4, event: nil, removes: 0)], expected: [v(20, .high, false, 1)]),
    Vector(number: "8", steps: [.event("signup", 1), .event("purchase", 2, 9.99), .event("subscribe", 6)], expected: [v(58, .high, true, 1)]),
    Vector(
        number: "9", steps: [.event("signup", 1), .event("purchase", 2, 9.99), .event("subscribe", 6), .event("purchase", 10, 100)],
        expected: [v(58, .high, true, 1)]),
    Vector(number: "10", priorW1Fine: 26, steps: [.event("app_open", 49)], expected: [v(26, .low, false, 2)]),
    Vector(number: "11", priorW1Fine: 26, steps: [.event("app_open", 49), .event("purchase", 50, 15)], expected: [v(26, .medium, false, 2)]),
    Vector(
        number: "12", priorW1Fine: 26, steps: [.event("level_complete", 60), .event("level_complete", 61), .event("level_complete", 62)],
        expected: [v(26, .low, false, 2), v(26, .low, false, 2), v(26, .medium, false, 2)]),
    Vector(number: "13", steps: [.event("purchase", 48, 30)], expected: [v(0, .high, false, 2)]),
    Vector(number: "13b", steps: [.event("purchase", 48 - 1.0 / 3600, 30)], expected: [v(20, .high, false, 1)]),
    Vector(number: "14", priorW1Fine: 26, steps: [.event("purchase", 200, 60), .call(840)], expected: [v(26, .high, false, 3), nil]),
    Vector(number: "15", steps: [.event("purchase", 2, 500, "XYZ")], expected: [v(16, .medium, false, 1)]),
]

/// Replays the steps as the server does: after each one, evaluate with the history so far and
/// keep the state.
private func replay(_ vector: Vector, schema: SKANSchema?) -> [SKANValues?] {
    var state: [Int: SKANWindowState] = [:]
    if let prior = vector.priorW1Fine { state[1] = SKANWindowState(fine: prior, coarse: .medium) }
    var history: [SKANEvent?] = []
    var outputs: [SKANValues?] = []
    for step in vector.steps {
        history.append(step.event)
        if let removed = step.removes { history[removed] = nil }
        let outcome = SKANEvaluator.evaluate(
            schema: schema, isIOS: vector.iOS, firstInit: firstInit, now: at(step.hours),
            events: history.compactMap { $0 }, state: state)
        state = outcome.state
        outputs.append(outcome.values)
    }
    return outputs
}

@Suite struct SKANTests {
    @Test(arguments: vectors)
    fileprivate func vector(_ vector: Vector) throws {
        let schema = vector.schema ? try SKANSchemaParser.parse(json: specSchemaJSON) : nil
        let outputs = replay(vector, schema: schema)
        #expect(Array(outputs.suffix(vector.expected.count)) == vector.expected)
    }

    @Test func anUnknownCurrencyCountsTheEventButNotItsAmountAndIsReported() throws {
        let schema = try SKANSchemaParser.parse(json: specSchemaJSON)
        let outcome = SKANEvaluator.evaluate(
            schema: schema, isIOS: true, firstInit: firstInit, now: at(2),
            events: [SKANEvent(name: "purchase", receivedAt: at(2), amount: 500, currency: "XYZ")], state: [:])
        #expect(outcome.values == v(16, .medium, false, 1))
        #expect(outcome.unknownCurrencies == ["XYZ"])
    }

    @Test func theSpecSchemaParses() throws {
        let schema = try SKANSchemaParser.parse(json: specSchemaJSON)
        #expect(schema.fx == ["EUR": 1.10, "INR": 0.012])
        #expect(schema.windows[1].coarseRules.count == 2)
        #expect(schema.paymentEvent == "purchase")
    }

    @Test func everyRejectionNamesItsJSONPath() {
        func mutated(_ from: String, _ to: String) -> String { specSchemaJSON.replacingOccurrences(of: from, with: to) }
        let cases: [(String, String)] = [
            (mutated(#""offset": 5, "event": "subscribe""#, #""offset": 6, "event": "subscribe""#), "skan.windows.w1.fine.segments[3].offset"),
            (mutated(#""offset": 0, "width": 3"#, #""offset": 4, "width": 3"#), "skan.windows.w1.fine.segments[0]"),
            (mutated(#""offset": 3, "event": "signup""#, #""offset": 2, "event": "signup""#), "skan.windows.w1.fine.segments[1]"),
            (mutated("[0.01, 5, 10, 25, 50, 100, 200]", "[0.01, 10, 5]"), "skan.windows.w1.fine.segments[0].edges[2]"),
            (mutated(#""count_gte": 3"#, #""count_over": 3"#), "skan.windows.w2.coarse.rules[1].any[1].count_over"),
            (
                mutated(#""value": "high", "any": [{"revenue_gte": 20}]"#, #""value": "top", "any": [{"revenue_gte": 20}]"#),
                "skan.windows.w2.coarse.rules[0].value"
            ),
            (mutated(#""mode": "bitfield""#, #""mode": "bits""#), "skan.windows.w1.fine.mode"),
            (mutated(#""aggregation": "window""#, #""aggregation": "daily""#), "skan.windows.w1.aggregation"),
            (mutated(#""EUR": 1.10"#, #""EUR": -1"#), "skan.fx.EUR"),
            (mutated(#""w3":"#, #""w4":"#), "skan.windows.w4"),
            (mutated(#""monotonic": true"#, #""monotonic": 1"#), "skan.monotonic"),
            (mutated(#""w2": { "coarse""#, #""w2": { "fine": {"mode": "funnel", "steps": []}, "coarse""#), "skan.windows.w2.fine"),
            (#"{"windows": {"w1": {"fine": {"mode": "rules", "rules": [{"value": 64, "all": []}]}}}}"#, "skan.windows.w1.fine.rules[0].value"),
            // Beyond Int's range: once converted before the range check, which traps.
            (#"{"windows": {"w1": {"fine": {"mode": "rules", "rules": [{"value": 1e300, "all": []}]}}}}"#, "skan.windows.w1.fine.rules[0].value"),
            (#"{"windows": {"w1": {"lock": {"any": [{"revenue_gte": 1, "after_hours": 2}]}}}}"#, "skan.windows.w1.lock.any[0]"),
            ("[1]", "skan"),
        ]
        for (json, path) in cases {
            #expect(throws: SKANSchemaParser.Problem.self, "\(path)") { try SKANSchemaParser.parse(json: json) }
            do {
                _ = try SKANSchemaParser.parse(json: json)
            } catch {
                #expect(error.path == path, "\(error)")
            }
        }
    }

    @Test func rulesAndFunnelModes() throws {
        let schema = try SKANSchemaParser.parse(
            json: #"""
                {"windows": {"w1": {"fine": {"mode": "funnel", "steps": [{"event": "signup", "value": 10}, {"event": "tutorial", "value": 20}, {"event": "purchase", "value": 40}]}}}}
                """#)
        func fine(_ names: [String]) -> Int? {
            SKANEvaluator.evaluate(
                schema: schema, isIOS: true, firstInit: firstInit, now: at(5),
                events: names.map { SKANEvent(name: $0, receivedAt: at(1)) }, state: [:]
            ).values?.fine
        }
        #expect(fine([]) == 0 && fine(["signup"]) == 10 && fine(["signup", "tutorial", "purchase"]) == 40)
        #expect(fine(["signup", "purchase"]) == 10)  // the funnel stops at the first step not reached
        let rules = try SKANSchemaParser.parse(
            json: #"""
                {"monotonic": false, "windows": {"w1": {"fine": {"mode": "rules", "rules": [{"value": 5, "all": [{"event": "a"}]}, {"value": 9, "all": [{"event": "a"}, {"revenue_gte": 10}]}, {"value": 3, "all": [{"after_hours": 24}]}]}}}}
                """#)
        let result = SKANEvaluator.evaluate(
            schema: rules, isIOS: true, firstInit: firstInit, now: at(2),
            events: [SKANEvent(name: "a", receivedAt: at(1), amount: 12)], state: [:])
        #expect(result.values?.fine == 9)
    }

    /// Random histories: within W1 fine never decreases; coarse never decreases within a window;
    /// once a window is locked its values never change.
    @Test func monotonicAndLockPropertiesHoldOnRandomHistories() throws {
        let schema = try SKANSchemaParser.parse(json: specSchemaJSON)
        var generator = SeededGenerator(seed: 42)
        let names = ["signup", "purchase", "subscribe", "level_complete", "app_open"]
        for _ in 0..<300 {
            var state: [Int: SKANWindowState] = [:]
            var events: [SKANEvent] = []
            var hours = 0.0
            var previous: SKANValues?
            var lockedValues: [Int: SKANValues] = [:]
            for _ in 0..<Int.random(in: 1...25, using: &generator) {
                hours += Double.random(in: 0...40, using: &generator)
                if hours >= 840 { break }
                let amount: Double? = Bool.random(using: &generator) ? Double.random(in: 0...120, using: &generator) : nil
                events.append(
                    SKANEvent(
                        name: names.randomElement(using: &generator)!, receivedAt: at(hours), amount: amount,
                        currency: ["USD", "EUR", "INR", "XYZ"].randomElement(using: &generator)))
                if Int.random(in: 0..<8, using: &generator) == 0, !events.isEmpty {
                    events.remove(at: Int.random(in: 0..<events.count, using: &generator))
                }
                let outcome = SKANEvaluator.evaluate(schema: schema, isIOS: true, firstInit: firstInit, now: at(hours), events: events, state: state)
                state = outcome.state
                let values = try #require(outcome.values)
                if let locked = lockedValues[values.window] { #expect(values == locked) }
                if values.lock { lockedValues[values.window] = lockedValues[values.window] ?? values }
                if let previous, previous.window == values.window {
                    if values.window == 1 { #expect(values.fine >= previous.fine) }
                    #expect(values.coarse >= previous.coarse)
                }
                if let previous, values.window > 1, previous.window == 1 { #expect(values.fine == previous.fine) }
                previous = values
            }
        }
    }
}

@Suite struct SKANRevenueRangeTests {
    /// Revenue stored before amounts were bounded can be huge: rounding it to micro-units once
    /// overflowed to infinity, and infinity failed `revenue_gte` (it is not below infinity).
    @Test func hugeRevenueStillMeetsARevenueFloor() throws {
        let schema = try SKANSchemaParser.parse(json: specSchemaJSON)
        let facts = SKANEvaluator.Facts(
            events: [SKANEvent(name: "purchase", receivedAt: Timestamp(milliseconds: 0), amount: 1e300)],
            schema: schema, hours: 1)
        #expect(facts.holds(.revenue(atLeast: 25, below: nil)))
        #expect(!facts.holds(.revenue(atLeast: nil, below: 25)))
    }
}
