import StoreContracts

/// Reference rates on either backend (`SessionSource`).
struct ExchangeRateRecords<Source: SessionSource>: ExchangeRateStore {
    let source: Source

    func save(_ days: [String: [String: Double]]) throws -> Int {
        try source.writeSession { connection in
            // Nothing reads these writes' answers: sent without waiting where a batch allows (on
            // PostgreSQL the inserts, one after another, go as multi-row INSERTs).
            let sorted = days.sorted { $0.key < $1.key }
            for (day, _) in sorted { try connection.runUnanswered("DELETE FROM fx_rates WHERE day = ?", day) }
            var stored = 0
            for (day, rates) in sorted {
                for (currency, rate) in rates.sorted(by: { $0.key < $1.key }) {
                    try connection.runUnanswered("INSERT INTO fx_rates (day, currency, per_eur) VALUES (?, ?, ?)", day, currency, rate)
                    stored += 1
                }
            }
            return stored
        }
    }

    func days(since: String, until: String) throws -> [String: [String: Double]] {
        try source.read { connection in
            var days: [String: [String: Double]] = [:]
            for (day, currency, rate) in try connection.query(
                """
                SELECT day, currency, per_eur FROM fx_rates
                WHERE day >= coalesce((SELECT max(day) FROM fx_rates WHERE day <= ?), ?) AND day <= ?
                """, since, since, until, map: { ($0.string(0), $0.string(1), $0.double(2)) })
            {
                days[day, default: [:]][currency] = rate
            }
            return days
        }
    }
}
