import App
import Foundation

/// `stats --traffic-quality` as text: the totals, then one table per grouping.
enum TrafficQualityTable {
    static func render(_ report: TrafficQualityReport) -> String {
        func percent(_ share: Double) -> String { String(format: "%.2f%%", share * 100) }
        let header = ["", "rejected", "flagged", "rejection rate", "flag rate"]
        func rows(_ counts: [TrafficQualityReport.Count], name: (TrafficQualityReport.Count) -> String) -> [[String]] {
            counts.map { [name($0), String($0.rejected), String($0.flagged), percent(report.rate($0.rejected)), percent(report.rate($0.flagged))] }
        }
        var out = [
            "installs \(report.installs), rejected \(report.rejected) (\(percent(report.rate(report.rejected)))), "
                + "flagged \(report.flagged) (\(percent(report.rate(report.flagged))))", "",
        ]
        out.append(AlignedTable.render(header: ["reason"] + header.dropFirst(), rows: rows(report.byReason) { $0.key }, leftColumns: 1))
        if !report.bySource.isEmpty {
            out += ["", AlignedTable.render(header: ["source"] + header.dropFirst(), rows: rows(report.bySource) { $0.key }, leftColumns: 1)]
            out += [
                "",
                AlignedTable.render(
                    header: ["source / campaign"] + header.dropFirst(), rows: rows(report.byCampaign) { "\($0.source ?? "(none)") / \($0.key)" },
                    leftColumns: 1),
            ]
        }
        return out.joined(separator: "\n")
    }
}
