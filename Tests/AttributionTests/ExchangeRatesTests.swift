import Attribution
import Testing

/// The ECB's reference-rate files read as they are published, and amounts converted through the
/// euro at a day's rates (or the last day's before it, said so).
@Suite struct ExchangeRatesTests {
    /// `eurofxref.csv` as the ECB publishes it: the day spelled out, spaces, a trailing comma.
    static let daily = "Date, USD, JPY, GBP, \n27 November 2026, 1.0400, 160.00, 0.8300, \n"
    static let history = """
        Date,USD,JPY,GBP,ISK,
        2026-11-26,1.0500,161.00,0.8400,N/A,
        2026-11-25,1.0600,162.00,N/A,150.0,
        """

    @Test func bothFileShapesAreRead() throws {
        let daily = try ECBRates.days(Array(Self.daily.utf8)).get()
        #expect(daily == ["2026-11-27": ["USD": 1.04, "JPY": 160, "GBP": 0.83]])
        let history = try ECBRates.days(Array(Self.history.utf8)).get()
        #expect(history["2026-11-26"] == ["USD": 1.05, "JPY": 161, "GBP": 0.84], "N/A is no rate")
        #expect(history["2026-11-25"]?["ISK"] == 150)
    }

    @Test func amountsGoThroughTheEuroAtTheirDaysRates() throws {
        var days = try ECBRates.days(Array(Self.history.utf8)).get()
        days.merge(try ECBRates.days(Array(Self.daily.utf8)).get()) { _, new in new }
        let rates = ExchangeRates(days)
        let yen = try #require(rates.convert(104, from: "USD", to: "JPY", on: "2026-11-27"))
        #expect(abs(yen.amount - 16_000) < 1e-9 && yen.ratesOf == "2026-11-27" && !yen.isStale)
        // A Saturday: Friday's rates, said so.
        let weekend = try #require(rates.convert(10, from: "EUR", to: "USD", on: "2026-11-28"))
        #expect(abs(weekend.amount - 10.4) < 1e-9 && weekend.ratesOf == "2026-11-27" && weekend.isStale)
        // A currency a day lacks: the last day that has both.
        let krona = try #require(rates.convert(1.06, from: "USD", to: "ISK", on: "2026-11-27"))
        #expect(abs(krona.amount - 150) < 1e-9 && krona.ratesOf == "2026-11-25")
        #expect(rates.convert(1, from: "USD", to: "JPY", on: "2026-11-24") == nil, "before the first day")
        #expect(rates.convert(5, from: "CHF", to: "CHF", on: "2020-01-01")?.amount == 5)
        #expect(rates.rates(on: "2026-11-30")?.day == "2026-11-27")
    }

    @Test func aWrongCellIsNamedByLineAndColumn() {
        func refusal(_ text: String) -> String {
            guard case .failure(let refused) = ECBRates.days(Array(text.utf8)) else { return "accepted" }
            return refused.refusals.map(\.description).joined(separator: "; ")
        }
        #expect(refusal("Date,USD\n2026-11-26,-1\n") == "line 2, column USD: a rate must be a positive number, not '-1'")
        #expect(refusal("Date,USD\nyesterday,1\n").hasPrefix("line 2, column Date: not a day"))
        #expect(refusal("Date,DOLLAR\n2026-11-26,1\n") == "line 1, column DOLLAR: not a three-letter ISO 4217 code")
        #expect(refusal("Day,USD\n") == "line 1, column DAY: the first column must be Date")
        #expect(refusal("Date,USD\n") == "the file: the file has a header and no day")
    }
}
