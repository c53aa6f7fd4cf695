import Foundation
import JSON

/// Reads a SKAN schema from JSON (as `JSONSerialization` gives it), rejecting with the JSON path:
/// bits outside 0..5, values outside 0..63, overlapping segments, edges not ascending, unknown
/// keys or condition keys.
public enum SKANSchemaParser {
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public let path: String
        public let message: String
        public var description: String { "\(path): \(message)" }
    }

    public static func parse(json text: String) throws(Problem) -> SKANSchema {
        guard let node = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
            throw Problem(path: "skan", message: "is not valid JSON")
        }
        return try parse(node, path: "skan")
    }

    static func parse(_ value: JSONValue, path: String) throws(Problem) -> SKANSchema {
        let root = try dictionary(value, path, allowed: ["enabled", "base_currency", "fx", "monotonic", "payment_event", "windows"])
        var schema = SKANSchema()
        schema.enabled = try bool(root["enabled"], "\(path).enabled") ?? true
        schema.monotonic = try bool(root["monotonic"], "\(path).monotonic") ?? true
        if let currency = try string(root["base_currency"], "\(path).base_currency") {
            guard MoneyAmount.isCurrencyCode(currency) else {
                throw Problem(path: "\(path).base_currency", message: "must be a three-letter currency code")
            }
            schema.baseCurrency = currency
        }
        if let event = try string(root["payment_event"], "\(path).payment_event") {
            guard !event.isEmpty else { throw Problem(path: "\(path).payment_event", message: "must not be empty") }
            schema.paymentEvent = event
        }
        if let fx = root["fx"] {
            let rates = try dictionary(fx, "\(path).fx", allowed: nil)
            for (currency, rate) in rates {
                guard MoneyAmount.isCurrencyCode(currency) else {
                    throw Problem(path: "\(path).fx.\(currency)", message: "must be a three-letter currency code")
                }
                guard let number = try self.number(rate, "\(path).fx.\(currency)"), number > 0, number.isFinite else {
                    throw Problem(path: "\(path).fx.\(currency)", message: "must be a positive number")
                }
                schema.fx[currency] = number
            }
        }
        if let windows = root["windows"] {
            let object = try dictionary(windows, "\(path).windows", allowed: ["w1", "w2", "w3"])
            for (index, key) in ["w1", "w2", "w3"].enumerated() {
                if let window = object[key] { schema.windows[index] = try parseWindow(window, "\(path).windows.\(key)", isFirst: index == 0) }
            }
        }
        return schema
    }

    static func parseWindow(_ value: JSONValue, _ path: String, isFirst: Bool) throws(Problem) -> SKANSchema.Window {
        let object = try dictionary(value, path, allowed: ["aggregation", "fine", "coarse", "lock"])
        var window = SKANSchema.Window()
        switch try string(object["aggregation"], "\(path).aggregation") {
        case nil, "window"?: window.cumulative = false
        case "cumulative"?: window.cumulative = true
        default: throw Problem(path: "\(path).aggregation", message: "must be 'window' or 'cumulative'")
        }
        if let fine = object["fine"] {
            // Only W1 postbacks carry a fine value (SKAN 4).
            guard isFirst else { throw Problem(path: "\(path).fine", message: "only w1 has a fine value; w2 and w3 repeat w1's last") }
            window.fine = try parseFine(fine, "\(path).fine")
        }
        if let coarse = object["coarse"] {
            let spec = try dictionary(coarse, "\(path).coarse", allowed: ["rules", "default"])
            for (index, rule) in try array(spec["rules"], "\(path).coarse.rules").enumerated() {
                let rulePath = "\(path).coarse.rules[\(index)]"
                let ruleObject = try dictionary(rule, rulePath, allowed: ["value", "any"])
                window.coarseRules.append(
                    (
                        try coarseValue(ruleObject["value"], "\(rulePath).value"),
                        try conditions(ruleObject["any"], "\(rulePath).any")
                    ))
            }
            if let fallback = spec["default"] { window.coarseDefault = try coarseValue(fallback, "\(path).coarse.default") }
        }
        if let lock = object["lock"] {
            let spec = try dictionary(lock, "\(path).lock", allowed: ["any"])
            window.lock = try conditions(spec["any"], "\(path).lock.any")
        }
        return window
    }

    static func parseFine(_ value: JSONValue, _ path: String) throws(Problem) -> SKANSchema.Fine {
        let object = try dictionary(value, path, allowed: ["mode", "segments", "rules", "steps"])
        switch try string(object["mode"], "\(path).mode") {
        case "bitfield"?:
            var segments: [SKANSchema.Segment] = []
            var usedBits = Set<Int>()
            for (index, item) in try array(object["segments"], "\(path).segments").enumerated() {
                let segmentPath = "\(path).segments[\(index)]"
                let segment = try dictionary(item, segmentPath, allowed: ["type", "offset", "width", "edges", "event"])
                let offset = try integer(segment["offset"], "\(segmentPath).offset", 0...5)
                let type = try string(segment["type"], "\(segmentPath).type")
                let width = type == "event_flag" ? 1 : try integer(segment["width"], "\(segmentPath).width", 1...6)
                guard offset + width <= 6 else { throw Problem(path: segmentPath, message: "uses bits beyond 0..5 (offset + width > 6)") }
                let bits = Set(offset..<(offset + width))
                guard usedBits.isDisjoint(with: bits) else { throw Problem(path: segmentPath, message: "overlaps an earlier segment's bits") }
                usedBits.formUnion(bits)
                switch type {
                case "revenue_bucket"?:
                    segments.append(
                        .revenueBucket(offset: offset, width: width, edges: try edges(segment["edges"], "\(segmentPath).edges", width: width)))
                case "event_flag"?:
                    segments.append(.eventFlag(offset: offset, event: try eventName(segment["event"], "\(segmentPath).event")))
                case "count_bucket"?:
                    segments.append(
                        .countBucket(
                            offset: offset, width: width, event: try eventName(segment["event"], "\(segmentPath).event"),
                            edges: try edges(segment["edges"], "\(segmentPath).edges", width: width)))
                default:
                    throw Problem(path: "\(segmentPath).type", message: "must be revenue_bucket, event_flag or count_bucket")
                }
            }
            return .bitfield(segments)
        case "rules"?:
            var rules: [(value: Int, all: [SKANSchema.Condition])] = []
            for (index, item) in try array(object["rules"], "\(path).rules").enumerated() {
                let rulePath = "\(path).rules[\(index)]"
                let rule = try dictionary(item, rulePath, allowed: ["value", "all"])
                rules.append((try integer(rule["value"], "\(rulePath).value", 0...63), try conditions(rule["all"], "\(rulePath).all")))
            }
            return .rules(rules)
        case "funnel"?:
            var steps: [(event: String, value: Int)] = []
            for (index, item) in try array(object["steps"], "\(path).steps").enumerated() {
                let stepPath = "\(path).steps[\(index)]"
                let step = try dictionary(item, stepPath, allowed: ["event", "value"])
                steps.append((try eventName(step["event"], "\(stepPath).event"), try integer(step["value"], "\(stepPath).value", 0...63)))
            }
            return .funnel(steps)
        default:
            throw Problem(path: "\(path).mode", message: "must be bitfield, rules or funnel")
        }
    }

    static func conditions(_ value: JSONValue?, _ path: String) throws(Problem) -> [SKANSchema.Condition] {
        var list: [SKANSchema.Condition] = []
        for (index, item) in try array(value, path).enumerated() {
            let conditionPath = "\(path)[\(index)]"
            let object = try dictionary(
                item, conditionPath, allowed: ["event", "count_gte", "count_lte", "revenue_gte", "revenue_lt", "after_hours"])
            if object["event"] != nil {
                guard object["revenue_gte"] == nil, object["revenue_lt"] == nil, object["after_hours"] == nil else {
                    throw Problem(path: conditionPath, message: "an event condition takes only event, count_gte and count_lte")
                }
                list.append(
                    .event(
                        name: try eventName(object["event"], "\(conditionPath).event"),
                        countAtLeast: try optionalInteger(object["count_gte"], "\(conditionPath).count_gte"),
                        countAtMost: try optionalInteger(object["count_lte"], "\(conditionPath).count_lte")))
            } else if object["revenue_gte"] != nil || object["revenue_lt"] != nil {
                guard object["after_hours"] == nil, object["count_gte"] == nil, object["count_lte"] == nil else {
                    throw Problem(path: conditionPath, message: "a revenue condition takes only revenue_gte and revenue_lt")
                }
                list.append(
                    .revenue(
                        atLeast: try number(object["revenue_gte"], "\(conditionPath).revenue_gte"),
                        below: try number(object["revenue_lt"], "\(conditionPath).revenue_lt")))
            } else if let hours = try number(object["after_hours"], "\(conditionPath).after_hours") {
                guard object.count == 1, hours >= 0 else {
                    throw Problem(path: conditionPath, message: "after_hours stands alone and is not negative")
                }
                list.append(.afterHours(hours))
            } else {
                throw Problem(path: conditionPath, message: "needs event, revenue_gte/revenue_lt or after_hours")
            }
        }
        return list
    }

    // MARK: - Typed readers

    static func dictionary(_ value: JSONValue?, _ path: String, allowed: Set<String>?) throws(Problem) -> [String: JSONValue] {
        guard case .object(let object)? = value else { throw Problem(path: path, message: "must be an object") }
        if let allowed, let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw Problem(path: "\(path).\(unknown)", message: "unknown key")
        }
        return object
    }

    static func array(_ value: JSONValue?, _ path: String) throws(Problem) -> [JSONValue] {
        guard case .array(let list)? = value else { throw Problem(path: path, message: "must be an array") }
        return list
    }

    static func string(_ value: JSONValue?, _ path: String) throws(Problem) -> String? {
        switch value {
        case nil: return nil
        case .string(let text)?: return text
        default: throw Problem(path: path, message: "must be a string")
        }
    }

    static func bool(_ value: JSONValue?, _ path: String) throws(Problem) -> Bool? {
        switch value {
        case nil: return nil
        case .bool(let flag)?: return flag
        default: throw Problem(path: path, message: "must be true or false")
        }
    }

    static func number(_ value: JSONValue?, _ path: String) throws(Problem) -> Double? {
        switch value {
        case nil: return nil
        case .number(let number)?: return number
        default: throw Problem(path: path, message: "must be a number")
        }
    }

    static func integer(_ value: JSONValue?, _ path: String, _ range: ClosedRange<Int>) throws(Problem) -> Int {
        // The range is checked on the Double: Int(_:) traps on one beyond Int's range (1e300).
        guard let number = try number(value, path), number.rounded() == number,
            Double(range.lowerBound) <= number, number <= Double(range.upperBound)
        else {
            throw Problem(path: path, message: "must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(number)
    }

    static func optionalInteger(_ value: JSONValue?, _ path: String) throws(Problem) -> Int? {
        guard value != nil else { return nil }
        return try integer(value, path, 0...1_000_000)
    }

    static func edges(_ value: JSONValue?, _ path: String, width: Int) throws(Problem) -> [Double] {
        var edges: [Double] = []
        for (index, item) in try array(value, path).enumerated() {
            guard let edge = try number(item, "\(path)[\(index)]") else { throw Problem(path: "\(path)[\(index)]", message: "must be a number") }
            if let last = edges.last, edge <= last { throw Problem(path: "\(path)[\(index)]", message: "edges must be strictly ascending") }
            edges.append(edge)
        }
        guard edges.count < 1 << width else { throw Problem(path: path, message: "\(edges.count) edges need more than \(width) bits") }
        return edges
    }

    static func eventName(_ value: JSONValue?, _ path: String) throws(Problem) -> String {
        guard let name = try string(value, path), !name.isEmpty else { throw Problem(path: path, message: "must be an event name") }
        return name
    }

    static func coarseValue(_ value: JSONValue?, _ path: String) throws(Problem) -> SKANSchema.Coarse {
        guard let text = try string(value, path), let coarse = SKANSchema.Coarse(rawValue: text) else {
            throw Problem(path: path, message: "must be low, medium or high")
        }
        return coarse
    }

}
