public import App
import Attribution
import HTTP
public import JSON

/// Links imported from another service, answered row by row (docs/migrate-from-firebase.md,
/// docs/migrate-from-branch.md): `POST /admin/v1/projects/{id}/imports/fdl?domain=D` a Firebase
/// Dynamic Links export (Takeout CSV) onto one of the project's domains, `…/imports/branch[?domain=D]`
/// a CSV of Branch links; both `[&dry_run=true][&on_conflict=replace]`, `Content-Type: text/csv`.
public enum LinkImportRoutes {
    static func importFDL(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            guard let domain = request.queryValue("domain") else {
                throw HTTPError.invalidField("domain", "is required (one of the project's domains)")
            }
            let (dryRun, replace) = try options(request)
            let report = try services.app.links.importFDL(
                projectID: project.id, domain: domain, csv: request.body, dryRun: dryRun, replace: replace, now: services.now(for: project))
            return .json(bytes: body(report).serialized())
        }
    }

    static func importBranch(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let (dryRun, replace) = try options(request)
            let report = try services.app.links.importBranch(
                projectID: project.id, domain: request.queryValue("domain"), csv: request.body, dryRun: dryRun, replace: replace,
                now: services.now(for: project))
            return .json(bytes: body(report).serialized())
        }
    }

    /// `dry_run`, `on_conflict`, and a CSV body.
    private static func options(_ request: HTTPRequest) throws -> (dryRun: Bool, replace: Bool) {
        let dryRun = try request.flag("dry_run")
        let replace: Bool
        switch request.queryValue("on_conflict") {
        case nil, "skip"?: replace = false
        case "replace"?: replace = true
        case let other?: throw HTTPError.invalidField("on_conflict", "must be skip or replace, got '\(other.prefix(characters: 32))'")
        }
        let type = request.headers["Content-Type"]?.lowercased() ?? ""
        guard type.hasPrefix("text/csv") || type.hasPrefix("text/plain") || type.hasPrefix("application/octet-stream") else {
            throw HTTPError(.unsupportedMediaType, code: "unsupported_media_type", message: "send the file as Content-Type: text/csv")
        }
        return (dryRun, replace)
    }

    /// The report as the API and the command line's `--json` give it.
    public static func body(_ report: LinkImportReport) -> JSONValue {
        .object([
            "dry_run": .bool(report.dryRun), "created": .number(Double(report.count(.created))),
            "skipped": .number(Double(report.count(.skipped))), "conflicts": .number(Double(report.count(.conflict))),
            "replaced": .number(Double(report.count(.replaced))), "refused": .number(Double(report.count(.refused))),
            "rows": .array(
                report.rows.map { row in
                    var fields: [String: JSONValue] = ["line": .number(Double(row.line)), "outcome": .string(row.outcome.rawValue)]
                    if let link = row.shortLink { fields["short_link"] = .string(link) }
                    if let column = row.column { fields["column"] = .string(column) }
                    if let reason = row.reason { fields["reason"] = .string(reason) }
                    return .object(fields)
                }),
        ])
    }
}
