import API
import App
import ArgumentParser
import Attribution
import Foundation
import JSON
import Store
import StoreContracts

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Print a project's clicks, installs, events and revenue per link, as a table (or JSON).")

    @OptionGroup var global: GlobalOptions
    @Option(help: "The project's id.") var project: String
    @Option(help: "From when: \(TimeSpecification.expected) (default: all time).") var since: String?
    @Option(help: "Until when, excluded (default: now).") var until: String?
    @Flag(help: "Print JSON, as GET /admin/v1/projects/{id}/stats (or …/skan/report) does.") var json = false
    @Flag(help: "Print what Apple's SKAdNetwork and AdAttributionKit postback copies measured, beside our installs.") var skan = false
    @Flag(help: "Print return on ad spend per campaign (the days --since and --until fall on; default the last 30).") var roas = false
    @Option(help: "With --roas: network, campaign or adgroup.") var by = ROASReport.Grouping.campaign.rawValue
    @Flag(help: "Print the installs fraud rules rejected or flagged, by reason, source and campaign.") var trafficQuality = false

    func validate() throws {
        let now = SystemClock().now()
        if let since, TimeSpecification.parse(since, now: now) == nil { throw ValidationError("--since: expected \(TimeSpecification.expected)") }
        if let until, TimeSpecification.parse(until, now: now) == nil { throw ValidationError("--until: expected \(TimeSpecification.expected)") }
        if ROASReport.Grouping(rawValue: by) == nil { throw ValidationError("--by: expected network, campaign or adgroup") }
    }

    func run() throws {
        let configuration = try global.loadConfiguration()
        let app = try global.openApp(configuration)
        guard let found = try app.projects.find(id: project) else {
            FileHandleOutput.standardError("stats: no project \(project)")
            throw ExitCode.failure
        }
        // A test-mode project's "now" is its own saved clock, as the server's.
        let now = app.now(for: found)
        if roas { return try printROAS(app, found, now: now) }
        let from = since.flatMap { TimeSpecification.parse($0, now: now) } ?? Timestamp(milliseconds: 0)
        let to = until.flatMap { TimeSpecification.parse($0, now: now) } ?? now.adding(seconds: 1)
        guard from < to else { throw ValidationError("--since must be before --until") }
        if trafficQuality {
            let report = try app.reports.trafficQuality(project: found, since: from, until: to)
            if json {
                guard case .object(var body) = report.json else { return }
                body["project_id"] = .string(found.id)
                print(String(decoding: JSONValue.object(body).serialized(), as: UTF8.self))
            } else {
                print("\(found.name) (\(found.id)), \(from.iso8601) to \(to.iso8601)\n")
                print(TrafficQualityTable.render(report))
            }
            return
        }
        let stats = try app.reports.stats(project: found, since: from, until: to)
        if skan {
            let report = try app.applePostbacks.report(project: found, since: from, until: to, ours: stats.totals)
            if json {
                print(String(decoding: JSONValue.object(SKANReportJSON.object(report, since: from, until: to)).serialized(), as: UTF8.self))
            } else {
                print("\(found.name) (\(found.id)), \(from.iso8601) to \(to.iso8601)\n")
                print(SKANTable.render(report))
            }
        } else if json {
            try printJSON(StatsBody(projectID: found.id, since: from, until: to, stats: stats))
        } else {
            print("\(found.name) (\(found.id)), \(from.iso8601) to \(to.iso8601)\n")
            print(StatsTable.render(stats))
        }
    }
}

extension StatsCommand {
    /// The ROAS report of the days `--since` and `--until` fall on in the project's calendar.
    func printROAS(_ app: AppServices, _ project: Project, now: Timestamp) throws {
        let calendar = LocalCalendar(identifier: project.settings.timeZone) ?? .utc
        let from = since.flatMap { TimeSpecification.parse($0, now: now) } ?? calendar.addingDays(-29, to: calendar.startOfDay(now))
        let to = until.flatMap { TimeSpecification.parse($0, now: now) } ?? now.adding(seconds: 1)
        guard from < to else { throw ValidationError("--since must be before --until") }
        let (first, last) = (calendar.dateText(from), calendar.dateText(Timestamp(milliseconds: to.milliseconds - 1)))
        let grouping = ROASReport.Grouping(rawValue: by) ?? .campaign
        let report: ROASReport
        do {
            report = try app.roas.report(project: project, since: first, until: last, by: grouping)
        } catch AppError.invalid(let problems) {
            FileHandleOutput.standardError("stats: " + problems.map { "\($0)" }.joined(separator: "; "))
            throw ExitCode.failure
        }
        if json {
            print(String(decoding: ROASFields.json(report, since: first, until: last, by: grouping).serialized(), as: UTF8.self))
            return
        }
        print("\(project.name) (\(project.id)), \(first) to \(last), in \(report.currency)\n")
        var hidden: Set<String> = ["has_cost", "has_installs"]
        if grouping != .adGroup { hidden.formUnion(["adgroup_id", "adgroup_name"]) }
        if grouping == .network { hidden.formUnion(["campaign_id", "campaign_name"]) }
        let shown = ROASFields.columns.indices.filter { !hidden.contains(ROASFields.columns[$0]) }
        let columns = shown.map { ROASFields.columns[$0] }
        var totals = report.totals
        totals.network = "total"
        let rows = (report.rows + [totals]).map { row in
            let values = ROASFields.values(row, currency: report.currency)
            return shown.map { values[$0] }.map { value -> String in
                switch value {
                case .string(let text): return text.isEmpty ? "-" : text
                case .null: return "-"
                default: return String(decoding: value.serialized(), as: UTF8.self)
                }
            }
        }
        print(AlignedTable.render(header: columns.map { $0.replacingOccurrences(of: "_", with: " ") }, rows: rows, leftColumns: 3))
        if !report.staleRateDays.isEmpty { print("\nconverted at an earlier day's rates: " + report.staleRateDays.joined(separator: ", ")) }
        for (currency, amount) in report.unconverted.sorted(by: { $0.key < $1.key }) {
            print("no rate for \(currency): \(MoneyAmount.text(amount, currency: currency)) left out")
        }
    }
}

/// Cells as aligned columns: the first `leftColumns` left-aligned (names), the rest right (numbers).
enum AlignedTable {
    static func render(header: [String], rows: [[String]], leftColumns: Int) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max()! }
        return all.map { cells in
            cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return column < leftColumns ? cell + padding : padding + cell
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}

/// The stats as aligned columns: one row per link, then the totals (where organic installs count).
/// Money is shown per currency (`29.99 USD + 4.50 EUR`), never summed across currencies.
enum StatsTable {
    static func money(_ amounts: [String: Double]) -> String {
        amounts.isEmpty
            ? "-"
            : amounts.sorted { $0.key < $1.key }.map {
                String(MoneyAmount.text($0.value, currency: $0.key).dropFirst($0.key.count + 1)) + " " + $0.key
            }
            .joined(separator: " + ")
    }

    static func render(_ stats: ProjectStats) -> String {
        let header = [
            "link", "clicks", "bot clicks", "installs", "attributed", "deterministic", "probabilistic", "organic",
            "events", "payments", "event values",
        ]
        func row(_ name: String, _ counts: ProjectStats.Counts) -> [String] {
            [
                name, String(counts.clicks), String(counts.botClicks), String(counts.installs), String(counts.attributedInstalls),
                String(counts.deterministicInstalls), String(counts.probabilisticInstalls), String(counts.organicInstalls),
                String(counts.events), money(counts.paymentRevenue), money(counts.eventRevenue),
            ]
        }
        // Apple Ads installs have no link: their rows follow the links', named campaign/ad group/keyword.
        let appleAds = stats.appleAds.map { group in
            row(
                "apple ads \(group.campaignName ?? group.campaignID ?? "-")/\(group.adGroupName ?? group.adGroupID ?? "-")/"
                    + "\(group.keyword ?? group.keywordID ?? "-")\(group.test ? " (test)" : "")", group.counts)
        }
        let rows = stats.links.map { row($0.shortCode, $0.counts) } + appleAds + [row("total", stats.totals)]
        return AlignedTable.render(header: header, rows: rows, leftColumns: 1)
    }
}

/// Apple's postback copies as aligned columns: one row per framework, network, source and window.
enum SKANTable {
    static func render(_ report: SKANReport) -> String {
        let header = ["framework", "ad network", "source", "window", "postbacks", "redownloads", "values", "events"]
        let rows = report.rows.map { row in
            [
                row.framework.rawValue, row.adNetworkID, row.source, String(row.sequenceIndex), String(row.postbacks), String(row.redownloads),
                (row.fineValues.keys.sorted().map { "\($0)x\(row.fineValues[$0]!)" }
                    + row.coarseValues.keys.sorted().map { "\($0)x\(row.coarseValues[$0]!)" })
                    .joined(separator: " "),
                row.events.keys.sorted().map { "\($0) \(row.events[$0]!)" }.joined(separator: ", "),
            ]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
            + "\n\nApple's postbacks: \(report.postbacks) (\(report.redownloads) redownloads); our installs: \(report.ourInstalls) "
            + "(\(report.ourAttributedInstalls) attributed)"
    }
}
