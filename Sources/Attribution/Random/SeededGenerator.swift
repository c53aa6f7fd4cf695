import Foundation

/// SplitMix64: small, fast, and the same sequence for the same seed on every platform, which is
/// all a reproducible simulation needs (it is not for secrets).
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }

    /// A log-normal draw: `median` × e^(σ·z), z standard normal (Box–Muller).
    public mutating func logNormal(median: Double, sigma: Double) -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &self)
        let u2 = Double.random(in: 0..<1, using: &self)
        let z = (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
        return median * exp(sigma * z)
    }

    /// One of `items`, chosen with the given weights.
    public mutating func weighted<T>(_ items: [(T, Double)]) -> T {
        let total = items.reduce(0) { $0 + $1.1 }
        var point = Double.random(in: 0..<total, using: &self)
        for (item, weight) in items {
            if point < weight { return item }
            point -= weight
        }
        return items[items.count - 1].0
    }
}
