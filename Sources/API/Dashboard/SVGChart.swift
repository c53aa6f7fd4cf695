import JSON

/// Charts as inline SVG, drawn here: a few dozen numbers need no charting library, and the page
/// stays one request with no script.
enum SVGChart {
    /// Grouped bars, one group per label, one bar per series (colours `k0`, `k1`, … of the stylesheet).
    /// - Parameter labelCount: about how many labels the axis shows (fewer on a narrow chart).
    static func bars(
        labels: [String], series: [(name: String, values: [Double])], colorOffset: Int = 0, width: Int = 960, height: Int = 220,
        labelCount: Int = 12
    ) -> HTML {
        let colors = ["#1f6feb", "#2da44e", "#8c959f", "#bf8700"]
        // A multiple of 4, so that counts get whole-number ticks (25 would give 6.25).
        let top = (niceCeiling(series.flatMap(\.values).max() ?? 0) / 4).rounded(.up) * 4
        let left = 44
        let bottom = 24
        let plotHeight = Double(height - bottom - 8)
        let groupWidth = Double(width - left) / Double(max(labels.count, 1))
        let barWidth = max(1, groupWidth * 0.8 / Double(max(series.count, 1)))
        var svg: HTML =
            ##"<svg viewBox="0 0 \##(width) \##(height)" role="img" aria-label="\##(series.map(\.name).joined(separator: ", "))">"##
        for step in 0...4 {
            let y = 8 + plotHeight * Double(step) / 4
            let value = top * Double(4 - step) / 4
            svg += ##"<line x1="\##(left)" x2="\##(width)" y1="\##(format(y))" y2="\##(format(y))" stroke="#eef1f4"/>"##
            svg += ##"<text x="\##(left - 6)" y="\##(format(y + 4))" font-size="11" text-anchor="end" fill="#5b6775">\##(compact(value))</text>"##
        }
        let labelEvery = max(1, (labels.count + max(labelCount, 1) - 1) / max(labelCount, 1))
        for (index, label) in labels.enumerated() {
            let groupX = Double(left) + groupWidth * Double(index) + groupWidth * 0.1
            for (seriesIndex, entry) in series.enumerated() where index < entry.values.count {
                let value = entry.values[index]
                let barHeight = plotHeight * value / top
                let x = groupX + barWidth * Double(seriesIndex)
                svg +=
                    ##"<rect x="\##(format(x))" y="\##(format(8 + plotHeight - barHeight))" width="\##(format(barWidth))" height="\##(format(barHeight))" fill="\##(colors[(seriesIndex + colorOffset) % colors.count])"><title>\##(label) \##(entry.name): \##(compact(value))</title></rect>"##
            }
            if index % labelEvery == 0 {
                svg += ##"<text x="\##(format(groupX))" y="\##(height - 6)" font-size="11" fill="#5b6775">\##(label)</text>"##
            }
        }
        return svg + "</svg>"
    }

    /// The axis top: at least 4 (whole-number ticks), else the next 1, 2, 2.5 or 5 × 10ⁿ above `value`.
    static func niceCeiling(_ value: Double) -> Double {
        guard value > 4 else { return 4 }
        var magnitude = 1.0
        while magnitude * 10 < value { magnitude *= 10 }
        return [1, 2, 2.5, 5, 10].map { $0 * magnitude }.first { $0 >= value } ?? value
    }

    /// A small line of `values`, for a table cell.
    static func sparkline(_ values: [Double], width: Int = 120, height: Int = 28) -> HTML {
        let top = max(values.max() ?? 0, 1)
        let step = values.count > 1 ? Double(width - 2) / Double(values.count - 1) : 0
        let points = values.enumerated().map { index, value in
            "\(format(1 + step * Double(index))),\(format(Double(height - 2) - Double(height - 4) * value / top))"
        }.joined(separator: " ")
        return
            ##"<svg viewBox="0 0 \##(width) \##(height)" width="\##(width)" height="\##(height)" role="img" aria-label="trend"><polyline points="\##(points)" fill="none" stroke="#1f6feb" stroke-width="2"/></svg>"##
    }

    static func format(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded.decimalText
    }

    /// 1234 → 1.2k, 2500000 → 2.5M.
    static func compact(_ value: Double) -> String {
        switch value {
        case 1_000_000...: format(value / 1_000_000) + "M"
        case 10_000...: format(value / 1000) + "k"
        default: format(value)
        }
    }
}

extension SVGChart {
    /// Horizontal bars for a table cell, one per value (colours `k0`, `k1`, … from `colorOffset`),
    /// each as long as its share of `top`.
    static func meter(_ values: [Double], of top: Double, colorOffset: Int = 0, width: Int = 140) -> HTML {
        let colors = ["#1f6feb", "#2da44e", "#8c959f", "#bf8700"]
        let barHeight = 8
        let height = values.count * (barHeight + 2)
        var svg: HTML = ##"<svg viewBox="0 0 \##(width) \##(height)" width="\##(width)" height="\##(height)" aria-hidden="true">"##
        for (index, value) in values.enumerated() {
            let length = top > 0 ? Double(width) * min(max(value / top, 0), 1) : 0
            svg +=
                ##"<rect x="0" y="\##(index * (barHeight + 2))" width="\##(format(length))" height="\##(barHeight)" fill="\##(colors[(index + colorOffset) % colors.count])"/>"##
        }
        return svg + "</svg>"
    }
}
