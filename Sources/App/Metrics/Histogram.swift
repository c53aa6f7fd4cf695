/// Observations counted per bucket (each bucket's own count, not cumulative; the last one is past
/// every bound) with their sum: what /metrics renders as a Prometheus histogram. Not synchronised:
/// its owner records under its own lock.
public struct Histogram: Sendable {
    public let bounds: [Double]
    public private(set) var counts: [Int]
    public private(set) var sum = 0.0

    public init(bounds: [Double]) {
        self.bounds = bounds
        counts = [Int](repeating: 0, count: bounds.count + 1)
    }

    public mutating func record(_ value: Double) {
        counts[bounds.firstIndex { value <= $0 } ?? bounds.count] += 1
        sum += value
    }

    public var count: Int { counts.reduce(0, +) }
}
