/// The overview's money over time: one chart per currency seen in the period (payments and event
/// values side by side), the project's own first. Amounts in two currencies never share an axis,
/// and a EUR purchase in a USD project shows on a chart of its own rather than nowhere.
enum MoneyCharts {
    /// Charts drawn before the rest are only named (a project selling in many currencies).
    static let drawnCurrencies = 3

    static func perCurrency(
        labels: [String], buckets: [(payments: [String: Double], eventValues: [String: Double])], projectCurrency: String
    ) -> HTML {
        var totals: [String: Double] = [:]
        for bucket in buckets {
            for (code, amount) in bucket.payments { totals[code, default: 0] += abs(amount) }
            for (code, amount) in bucket.eventValues { totals[code, default: 0] += abs(amount) }
        }
        let others = totals.filter { $0.key != projectCurrency && $0.value > 0 }.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map(\.key)
        let currencies = [projectCurrency] + others
        let drawn = HTML(
            joining: currencies.prefix(drawnCurrencies).map { code -> HTML in
                let payments = buckets.map { $0.payments[code] ?? 0 }
                let eventValues = buckets.map { $0.eventValues[code] ?? 0 }
                return """
                    <div class="chart"><div class="legend"><span><i class="k0"></i>Payments (\(code))</span>\
                    <span><i class="k1"></i>Event values (\(code))</span></div>\
                    \(SVGChart.bars(labels: labels, series: [("Payments \(code)", payments), ("Event values \(code)", eventValues)], width: 480))</div>
                    """
            })
        let rest = currencies.dropFirst(drawnCurrencies)
        guard !rest.isEmpty else { return drawn }
        return drawn
            + #"<p class="muted money-note">Also in this period: \#(rest.joined(separator: ", ")) (their totals are in the cards above).</p>"#
    }
}
