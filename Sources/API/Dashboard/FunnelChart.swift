import Foundation

/// The funnel drawn as SVG: one bar per step, its width the step's share of the first, centred so
/// the bars narrow like a funnel, with the step's count and its conversion from the step before.
enum FunnelChart {
    struct Step {
        let name: String
        let count: Int
    }

    /// `count` of `previous` as a percentage, one decimal below 10 %; "–" when there was none before.
    static func rate(_ count: Int, of previous: Int) -> String {
        guard previous > 0 else { return "–" }
        let percent = Double(count) * 100 / Double(previous)
        return percent < 10 ? String(format: "%.1f%%", percent) : String(format: "%.0f%%", percent)
    }

    /// The step's name and count on one line, its conversion on the next: one line of both did
    /// not fit beside the bars ("Paying installs 123 · 12.3 % of the step before" ran past the edge).
    static func svg(_ steps: [Step], width: Int = 480) -> HTML {
        let rowHeight = 40
        let height = rowHeight * steps.count
        let widest = Double(max(steps.map(\.count).max() ?? 0, 1))
        let barSpace = Double(width) * 0.56
        var svg: HTML = ##"<svg viewBox="0 0 \##(width) \##(height)" role="img" aria-label="Funnel">"##
        for (index, step) in steps.enumerated() {
            let barWidth = max(2, barSpace * Double(step.count) / widest)
            let x = (barSpace - barWidth) / 2
            let y = index * rowHeight + 4
            svg +=
                ##"<rect x="\##(SVGChart.format(x))" y="\##(y)" width="\##(SVGChart.format(barWidth))" height="\##(rowHeight - 8)" rx="3" fill="#1f6feb" opacity="\##(SVGChart.format(1 - Double(index) * 0.15))"><title>\##(step.name): \##(step.count)</title></rect>"##
            svg +=
                ##"<text x="\##(SVGChart.format(barSpace + 10))" y="\##(y + 13)" font-size="12" font-weight="600" fill="#1d232b">\##(step.name) \##(step.count)</text>"##
            if index > 0 {
                svg +=
                    ##"<text x="\##(SVGChart.format(barSpace + 10))" y="\##(y + 28)" font-size="11" fill="#5b6775">\##(rate(step.count, of: steps[index - 1].count)) of the step before</text>"##
            }
        }
        return svg + "</svg>"
    }
}
