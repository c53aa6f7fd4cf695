import Foundation

/// A project's SKAdNetwork 4 conversion schema (docs/skan.md): how an install's history
/// becomes fine/coarse/lock values per postback window. Built only through `parse`, which refuses
/// anything Apple would not accept or we would not understand, naming the JSON path.
public struct SKANSchema: Sendable, Equatable {
    public enum Coarse: String, Sendable, Comparable, CaseIterable {
        case low, medium, high
        var rank: Int { self == .low ? 0 : self == .medium ? 1 : 2 }
        public static func < (a: Coarse, b: Coarse) -> Bool { a.rank < b.rank }
    }

    public indirect enum Condition: Sendable, Equatable {
        case event(name: String, countAtLeast: Int?, countAtMost: Int?)
        case revenue(atLeast: Double?, below: Double?)
        case afterHours(Double)
    }

    public enum Segment: Sendable, Equatable {
        case revenueBucket(offset: Int, width: Int, edges: [Double])
        case eventFlag(offset: Int, event: String)
        case countBucket(offset: Int, width: Int, event: String, edges: [Double])
    }

    public enum Fine: Sendable, Equatable {
        case bitfield([Segment])
        /// The highest value whose conditions all hold.
        case rules([(value: Int, all: [Condition])])
        /// The value of the furthest step reached (every earlier step reached too).
        case funnel([(event: String, value: Int)])

        public static func == (a: Fine, b: Fine) -> Bool {
            switch (a, b) {
            case let (.bitfield(x), .bitfield(y)): return x == y
            case let (.rules(x), .rules(y)): return x.map(\.value) == y.map(\.value) && x.map(\.all) == y.map(\.all)
            case let (.funnel(x), .funnel(y)): return x.map(\.event) == y.map(\.event) && x.map(\.value) == y.map(\.value)
            default: return false
            }
        }
    }

    public struct Window: Sendable, Equatable {
        public var cumulative = false
        public var fine: Fine?
        public var coarseRules: [(value: Coarse, any: [Condition])] = []
        public var coarseDefault: Coarse = .low
        public var lock: [Condition] = []

        public static func == (a: Window, b: Window) -> Bool {
            a.cumulative == b.cumulative && a.fine == b.fine && a.coarseRules.map(\.value) == b.coarseRules.map(\.value)
                && a.coarseRules.map(\.any) == b.coarseRules.map(\.any) && a.coarseDefault == b.coarseDefault && a.lock == b.lock
        }
    }

    public var enabled = true
    public var baseCurrency = "USD"
    /// Units of the base currency per unit of each currency.
    public var fx: [String: Double] = [:]
    public var monotonic = true
    /// The event a completed payment counts as.
    public var paymentEvent = "purchase"
    /// W1, W2, W3.
    public var windows: [Window] = [Window(), Window(), Window()]
}
