import App
import Foundation

/// The Prometheus text format (0.0.4), written in one place: every family with its HELP and TYPE
/// lines, label values escaped, histograms cumulative with `+Inf`, `_sum` and `_count`.
struct PrometheusText {
    private(set) var text = ""

    mutating func counter(_ name: String, _ help: String, _ samples: [(labels: [(String, String)], value: Int)]) {
        family(name, help, type: "counter")
        for sample in samples { line(name, sample.labels, "\(sample.value)") }
    }

    mutating func counter(_ name: String, _ help: String, _ value: Int) { counter(name, help, [([], value)]) }

    mutating func gauge(_ name: String, _ help: String, _ samples: [(labels: [(String, String)], value: Double)]) {
        family(name, help, type: "gauge")
        for sample in samples { line(name, sample.labels, "\(sample.value)") }
    }

    mutating func gauge(_ name: String, _ help: String, _ value: Double) { gauge(name, help, [([], value)]) }

    mutating func histogram(_ name: String, _ help: String, _ histogram: Histogram) {
        family(name, help, type: "histogram")
        var cumulative = 0
        for (index, bound) in histogram.bounds.enumerated() {
            cumulative += histogram.counts[index]
            line(name + "_bucket", [("le", "\(bound)")], "\(cumulative)")
        }
        cumulative += histogram.counts[histogram.bounds.count]
        line(name + "_bucket", [("le", "+Inf")], "\(cumulative)")
        line(name + "_sum", [], "\(histogram.sum)")
        line(name + "_count", [], "\(cumulative)")
    }

    private mutating func family(_ name: String, _ help: String, type: String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    private mutating func line(_ name: String, _ labels: [(String, String)], _ value: String) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.0)=\"\(Self.escape($0.1))\"" }.joined(separator: ",") + "}"
        }
        text += " \(value)\n"
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
    }
}
