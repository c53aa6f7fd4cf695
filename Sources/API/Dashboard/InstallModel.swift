import App
import Attribution
import HTTP
import JSON
import StoreContracts

/// What one install's page shows, loaded without HTML: the install, its click, events, payments,
/// SKAN values, how it was matched, and (for the project's admins, as they carry receivers'
/// answers) its webhook and postback deliveries. `InstallPages.show` renders it.
struct InstallModel {
    /// "How it was matched", read from the explanation recorded with the install and what
    /// happened after (claims, clicks claimed earlier).
    struct Explanation: Equatable {
        struct Row: Equatable {
            /// A click's id, or the claim's source in words.
            var click: String
            var clickIsID: Bool
            var clickedAt: String
            var foundBy: String
            var score: String
            var factors: String
            var outcome: String
            /// For a click another install claimed first: that install's id (the outcome says so).
            var claimedBy: String? = nil
        }

        var decidedBy: String
        var minimumConfidence: String
        var candidatesConsidered: String
        var rows: [Row]
    }

    let project: Project
    let install: InstallSummary
    let click: ClickSummary?
    let events: [EventSummary]
    let payments: [PaymentSummary]
    let skanWindows: [SKANWindowSummary]
    /// Nil for a viewer: deliveries carry receivers' answers, like the webhooks page.
    let deliveries: [OutboxJob]?
    /// Nil for an install stored before explanations were recorded.
    let explanation: Explanation?
    let canErase: Bool

    static func load(installID: String, viewer: DashboardViewer, project: Project, services: Services) throws -> InstallModel {
        let browse = services.app.reports.browse
        guard let install = try browse.install(id: installID, projectID: project.id) else {
            throw AppError.notFound("project \(project.id) has no install \(installID)")
        }
        let admin = viewer.canChange(projectID: project.id)
        return InstallModel(
            project: project, install: install, click: try install.clickID.flatMap { try browse.click(clickID: $0, projectID: project.id) },
            events: try browse.events(installID: install.id, limit: 100), payments: try browse.payments(installID: install.id),
            skanWindows: try browse.skanWindows(installID: install.id),
            deliveries: admin ? try services.app.webhooks.deliveries(projectID: project.id, installID: install.id, limit: 50) : nil,
            explanation: try explanation(
                try browse.explanation(installID: install.id, projectID: project.id),
                annotations: try services.app.reports.annotations(installID: install.id, project: project)),
            canErase: admin)
    }

    static func explanation(_ text: String?, annotations: ExplanationAnnotations) throws -> Explanation? {
        guard let text, case .object(let recorded) = try JSONValueParser.parse(Array(text.utf8)) else { return nil }
        let fields = annotations.applied(to: recorded)
        var rows: [Explanation.Row] = []
        if case .array(let candidates)? = fields["candidates"] {
            for case .object(let candidate) in candidates {
                var factors = ""
                if case .array(let list)? = candidate["factors"] { factors = list.compactMap(\.stringValue).joined(separator: ", ") }
                rows.append(
                    Explanation.Row(
                        click: candidate["click_id"]?.stringValue ?? "", clickIsID: true, clickedAt: candidate["clicked_at"]?.stringValue ?? "",
                        foundBy: candidate["found_by"]?.stringValue ?? "", score: candidate["score"]?.numberValue.map { String($0) } ?? "–",
                        factors: factors, outcome: candidate["outcome"]?.stringValue ?? ""))
            }
        }
        for claim in annotations.claims {
            rows.append(
                Explanation.Row(
                    click: claim.source == "apple_ads" ? "Apple Ads claim" : claim.source, clickIsID: false, clickedAt: "", foundBy: "claim",
                    score: claim.won ? "1.0" : "–", factors: claim.campaignID.map { "campaign \($0)" } ?? "",
                    outcome: ExplanationAnnotations.outcome(of: claim)))
        }
        for click in annotations.claimedEarlier {
            rows.append(
                Explanation.Row(
                    click: click.clickID, clickIsID: true, clickedAt: click.clickedAt.iso8601, foundBy: "network", score: "–", factors: "",
                    outcome: "claimed by install \(click.installID) before this one came", claimedBy: click.installID))
        }
        return Explanation(
            decidedBy: fields["decided_by"]?.stringValue ?? "none",
            minimumConfidence: fields["min_confidence"]?.numberValue.map { String($0) } ?? "–",
            candidatesConsidered: fields["candidates_considered"]?.numberValue.map { String(Int($0)) } ?? "0", rows: rows)
    }

    /// Where the install came from, in one word.
    static func source(_ install: InstallSummary) -> String {
        guard install.attributed else { return "organic" }
        return install.matchedFactors == [AppleAdsAttribution.factor] ? "Apple Ads" : "link"
    }

    static func confidence(_ install: InstallSummary) -> String {
        // A confidence from the store is 0 to 1; one edited by hand out of range shows as it is, never traps.
        guard install.attributed else { return "–" }
        return (Int(exactly: (install.confidence * 100).rounded()).map(String.init) ?? "\(install.confidence)") + " %"
    }
}

extension JSONValue {
    fileprivate var stringValue: String? { if case .string(let text) = self { text } else { nil } }
    fileprivate var numberValue: Double? { if case .number(let value) = self { value } else { nil } }
}
