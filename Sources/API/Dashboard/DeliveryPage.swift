import App
import Attribution
import Foundation
import HTTP
import StoreContracts

/// One delivery of a webhook, postback, Apple Ads exchange or SKAN copy: where it went, the
/// request body it sent (signed as it is shown), and the last answer (status, and the start of the
/// body or the error), with a replay for a failed one.
enum DeliveryPage {
    /// Bytes of the answer shown: enough to read an error page's message, not a whole page.
    static let answerShown = 2_000

    static func show(_ services: Services) -> ProjectPage {
        let auth = DashboardAuth(services: services)
        return { request, viewer, project in
            let job = try services.app.webhooks.delivery(id: try request.parameter("deliveryId"), projectID: project.id)
            let base = "\(auth.prefix)/projects/\(project.id)"
            let replay: HTML =
                job.status == .failed && viewer.canChange(projectID: project.id)
                ? """
                <form class="inline" method="post" action="\(base)/outbound/deliveries/\(job.message.id)/replay">\
                \(DashboardPage.csrfField(viewer))<button>Replay</button></form>
                """ : ""
            let answer = job.lastResponse ?? job.lastError ?? ""
            let shown = answer.count > answerShown ? String(answer.prefix(answerShown)) + "…" : answer
            let rows: [(String, String)] = [
                ("Kind", job.message.kind), ("Event", job.message.eventType), ("Event id", job.message.eventID),
                ("Target", job.message.targetURL), ("Status", job.status.rawValue), ("Attempts", String(job.attempts)),
                ("Created", job.message.createdAt.iso8601), ("Next attempt", job.status == .pending ? job.nextAttemptAt.iso8601 : "–"),
                ("Delivered", job.deliveredAt?.iso8601 ?? "–"), ("Last status code", job.lastStatusCode.map(String.init) ?? "–"),
            ]
            let table = rows.map { row -> HTML in #"<tr><th>\#(row.0)</th><td>\#(row.1)</td></tr>"# }
            let body: HTML = """
                <h1>Delivery</h1><p><a href="\(base)/outbound">Back to webhooks and postbacks</a> \(replay)</p>\
                <table><tbody>\(table)</tbody></table>\
                <h2>\(job.lastRequest == nil ? "Request body" : "Request sent")</h2>\
                <pre>\(job.lastRequest ?? (job.message.payload.isEmpty ? "(none: a GET)" : job.message.payload))</pre>\
                <h2>\(job.lastError != nil && job.lastResponse == nil ? "Last error" : "Last answer")</h2>\
                <pre>\(shown.isEmpty ? "(nothing yet)" : shown)</pre>
                """
            return DashboardPage.render(
                title: "Delivery · \(project.name)", prefix: auth.prefix, viewer: viewer,
                projectNav: (project.id, project.name, "Outbound"), body: body)
        }
    }

    /// The target's host and path, without its query (which may hold a network's ids).
    static func shortTarget(_ url: String) -> String {
        let withoutQuery = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        guard let scheme = withoutQuery.range(of: "://") else { return withoutQuery }
        return String(withoutQuery[scheme.upperBound...])
    }
}
