/// A project's clicks and installs grouped by one property, and its events by name, over a
/// period and the period of the same length before it (for the change column). Built from the
/// tallies' sums (`TallyDimension`, migration 0039).
public enum BreakdownProperty: String, CaseIterable, Sendable {
    case platform, os, country, referrer

    public var clicksDimension: String { "click_\(rawValue)" }
    public var installsDimension: String { "install_\(rawValue)" }

    public var label: String {
        switch self {
        case .platform: "Platform"
        case .os: "OS version"
        case .country: "Country"
        case .referrer: "Referrer"
        }
    }

    /// How a stored value reads ("" is the property missing: no geo database, no referrer…).
    public func display(_ value: String) -> String {
        switch self {
        case .platform:
            return Self.platformName(value)
        case .os:
            guard let space = value.firstIndex(of: " ") else { return Self.platformName(value) }
            return Self.platformName(String(value[..<space])) + value[space...]
        case .country:
            return value.isEmpty ? "Unknown" : value
        case .referrer:
            return value.isEmpty ? "Direct (no referrer)" : value
        }
    }

    private static func platformName(_ value: String) -> String {
        switch value {
        case "": "Unknown"
        case "ios": "iOS"
        case "android": "Android"
        case "desktop": "Desktop"
        default: value.prefix(1).uppercased() + value.dropFirst()
        }
    }
}

public struct BreakdownRow: Sendable, Equatable {
    public let value: String
    public var clicks = 0
    public var installs = 0
    public var previousClicks = 0
    public var previousInstalls = 0

    public init(value: String) { self.value = value }
}

public struct EventBreakdownRow: Sendable, Equatable {
    public let name: String
    public var count = 0
    /// Installs that did it for the first time in the period.
    public var installs = 0
    /// Per currency, '' already resolved to the project's.
    public var revenue: [String: Double] = [:]
    public var previousCount = 0

    public init(name: String) { self.name = name }
}

public enum Breakdown {
    /// The rows of `property`: every value seen in either period.
    public static func rows(
        _ property: BreakdownProperty, current: [String: [String: Int64]], previous: [String: [String: Int64]]
    ) -> [BreakdownRow] {
        var rows: [String: BreakdownRow] = [:]
        for (value, count) in current[property.clicksDimension] ?? [:] { rows[value, default: BreakdownRow(value: value)].clicks += Int(count) }
        for (value, count) in current[property.installsDimension] ?? [:] { rows[value, default: BreakdownRow(value: value)].installs += Int(count) }
        for (value, count) in previous[property.clicksDimension] ?? [:] {
            rows[value, default: BreakdownRow(value: value)].previousClicks += Int(count)
        }
        for (value, count) in previous[property.installsDimension] ?? [:] {
            rows[value, default: BreakdownRow(value: value)].previousInstalls += Int(count)
        }
        return rows.values.filter { $0.clicks != 0 || $0.installs != 0 || $0.previousClicks != 0 || $0.previousInstalls != 0 }
            .sorted { ($0.clicks, $0.installs, $1.value) > ($1.clicks, $1.installs, $0.value) }
    }

    /// The dimensions `events` reads (`rows` reads its property's two).
    public static let eventDimensions = [TallyDimension.events, TallyDimension.eventInstalls, TallyDimension.eventRevenue]

    public static func events(current: [String: [String: Int64]], previous: [String: [String: Int64]], currency: String) -> [EventBreakdownRow] {
        var rows: [String: EventBreakdownRow] = [:]
        for (name, count) in current[TallyDimension.events] ?? [:] { rows[name, default: EventBreakdownRow(name: name)].count += Int(count) }
        for (name, count) in current[TallyDimension.eventInstalls] ?? [:] {
            rows[name, default: EventBreakdownRow(name: name)].installs += Int(count)
        }
        for (key, micros) in current[TallyDimension.eventRevenue] ?? [:] where micros != 0 {
            let (moneyCurrency, name) = TallyDimension.splitCurrency(key)
            rows[name, default: EventBreakdownRow(name: name)].revenue[moneyCurrency.isEmpty ? currency : moneyCurrency, default: 0] +=
                Double(micros) / TallyDimension.moneyUnit
        }
        for (name, count) in previous[TallyDimension.events] ?? [:] { rows[name, default: EventBreakdownRow(name: name)].previousCount += Int(count) }
        return rows.values.filter { $0.count != 0 || $0.installs != 0 || !$0.revenue.isEmpty || $0.previousCount != 0 }
            .sorted { ($0.count, $1.name) > ($1.count, $0.name) }
    }
}
