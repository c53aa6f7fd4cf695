/// Reference rates by day: how many units of each currency one euro bought (the European Central
/// Bank's reference rates, or rates an operator gives), and amounts converted between any two
/// currencies through the euro at a day's rates. A day without rates uses the last day before it
/// that has them, and says which day that was.
public struct ExchangeRates: Sendable, Equatable {
    /// Per day (`YYYY-MM-DD`), units of each currency per euro; the euro itself is 1.
    public private(set) var days: [String: [String: Double]] = [:]
    private var sortedDays: [String] = []

    public init(_ days: [String: [String: Double]] = [:]) {
        self.days = days
        sortedDays = days.keys.sorted()
    }

    /// An amount in another currency, with the day whose rates made it.
    public struct Converted: Sendable, Equatable {
        public let amount: Double
        /// The day of the rates used: `day` itself, or the last day before it with both rates.
        public let ratesOf: String
        /// Whether `ratesOf` is another day than the one asked for.
        public var isStale: Bool
    }

    /// `amount` of `from` in `to` at the rates of `day` (or the last day before it that has both
    /// currencies); nil when no day up to `day` has them.
    public func convert(_ amount: Double, from: String, to: String, on day: String) -> Converted? {
        if from == to { return Converted(amount: amount, ratesOf: day, isStale: false) }
        var index = upperBound(day) - 1
        while index >= 0 {
            let rates = days[sortedDays[index]]!
            if let fromRate = from == "EUR" ? 1 : rates[from], let toRate = to == "EUR" ? 1 : rates[to], fromRate > 0 {
                let used = sortedDays[index]
                return Converted(amount: amount / fromRate * toRate, ratesOf: used, isStale: used != day)
            }
            index -= 1
        }
        return nil
    }

    /// The rates of `day`, or of the last day before it that has any; nil before the first.
    public func rates(on day: String) -> (day: String, rates: [String: Double])? {
        let index = upperBound(day) - 1
        guard index >= 0 else { return nil }
        return (sortedDays[index], days[sortedDays[index]]!)
    }

    /// The index of the first day after `day`.
    private func upperBound(_ day: String) -> Int {
        var low = 0
        var high = sortedDays.count
        while low < high {
            let middle = (low + high) / 2
            if sortedDays[middle] <= day { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
