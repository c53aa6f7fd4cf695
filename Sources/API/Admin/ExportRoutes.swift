import App
import Attribution
import HTTP
import JSON
import StoreContracts

/// `/admin/v1/projects/{id}/export` (docs/export.md): where the project's raw export goes (the
/// secret key shown masked), the hours it wrote, and `POST …/export/run` for one closed hour.
enum ExportRoutes {
    static let fieldNames: Set<String> = [
        "destination", "endpoint", "region", "access_key_id", "secret_access_key", "formats", "tables", "enabled",
    ]

    static func save(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let body = try JSONFields(request, known: fieldNames)
            let fields = ExportFields(
                destination: try body.requiredString("destination", maxLength: 1024), endpoint: try body.string("endpoint", maxLength: 512),
                region: try body.string("region", maxLength: 64), accessKeyID: try body.string("access_key_id", maxLength: 256),
                secretAccessKey: try body.string("secret_access_key", maxLength: 256), formats: try names(body, "formats"),
                tables: try names(body, "tables"), enabled: try body.bool("enabled"))
            let saved = try services.app.exports.save(fields, project: project)
            return .json(bytes: try shown(saved, services: services, project: project).serialized())
        }
    }

    static func show(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { _, project in
            .json(bytes: try shown(try services.app.exports.settings(project: project), services: services, project: project).serialized())
        }
    }

    static func delete(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { _, project in
            try services.app.exports.delete(project: project)
            return HTTPResponse(status: .noContent)
        }
    }

    /// `{"hour": "2026-12-04T01", "again": true}`: exports that closed hour now (again: a new version).
    static func run(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let body = try JSONFields(request, known: ["hour", "again"])
            let text = try body.requiredString("hour", maxLength: 32)
            guard let hour = ExportHour(text: text) else { throw HTTPError.invalidField("hour", "must be an hour as YYYY-MM-DDTHH (UTC)") }
            let result = try services.app.exports.run(project: project, hour: hour, again: try body.bool("again") ?? false)
            return .json(bytes: hourResult(result).serialized())
        }
    }

    static func hourResult(_ result: ExportService.HourResult) -> JSONValue {
        .object([
            "hour": .string(result.hour.text), "version": .number(Double(result.version)), "written": .bool(result.written),
            "rows": .object(Dictionary(uniqueKeysWithValues: result.rows.map { ($0.key.rawValue, JSONValue.number(Double($0.value))) })),
        ])
    }

    private static func names(_ body: JSONFields, _ key: String) throws -> [String]? {
        switch body.fields[key] {
        case nil, .null?: return nil
        case .array(let items)?:
            return try items.map { item in
                guard case .string(let name) = item, name.utf8.count <= 64 else {
                    throw HTTPError.invalidField(key, "must be an array of names")
                }
                return name
            }
        default: throw HTTPError.invalidField(key, "must be an array of names")
        }
    }

    private static func shown(_ settings: ExportSettings, services: Services, project: Project) throws -> JSONValue {
        let now = services.app.clocks.clock(for: project).now().milliseconds
        let recent = try services.app.exports.hours(project: project, from: now - 48 * ExportHour.milliseconds, to: now)
        return .object([
            "destination": .string(settings.destination), "endpoint": settings.endpoint.map(JSONValue.string) ?? .null,
            "region": .string(settings.region), "access_key_id": settings.accessKeyID.map(JSONValue.string) ?? .null,
            "secret_access_key": settings.secretAccessKey.map { .string(AdPlatformService.masked($0)) } ?? .null,
            "formats": .array(settings.formats.map { .string($0.rawValue) }), "tables": .array(settings.tables.map { .string($0.rawValue) }),
            "enabled": .bool(settings.enabled), "first_hour": .string(ExportHour(containing: settings.firstHour).text),
            "schema_version": .number(Double(ExportTable.schemaVersion)),
            "recent_hours": .array(
                recent.reversed().map { hour in
                    .object([
                        "hour": .string(ExportHour(containing: hour.hour).text), "version": .number(Double(hour.version)),
                        "completed_at": hour.completedAt.map { .string($0.iso8601) } ?? .null,
                        "rows": .object(Dictionary(uniqueKeysWithValues: hour.rows.map { ($0.key.rawValue, JSONValue.number(Double($0.value))) })),
                    ])
                }),
        ])
    }
}
