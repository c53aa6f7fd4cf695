import App
import Attribution
import HTTP

/// `GET|POST /admin/v1/projects/{id}/clock`: a test-mode project's own clock, read and moved
/// forward (`advance_seconds` or `now`). Refused with 409 for other projects and for going back.
enum TestClockRoutes {
    /// Ten years: far past any window (SKAN's last ends at 840 h), and no overflow of milliseconds.
    static let maximumAdvanceSeconds: Double = 10 * 365 * 86_400

    /// `GET /admin/v1/projects/:id/clock`
    static func showClock(_ services: Services) -> RouteHandler {
        return ProjectScoped.sync(services) { request, project in
            return body(project, now: services.now(for: project))
        }
    }

    /// `POST /admin/v1/projects/:id/clock`
    static func moveClock(_ services: Services) -> RouteHandler {
        return ProjectScoped.sync(services) { request, project in
            let requested = try JSONValueParser.parse(request.body)
            if case .object(let fields) = requested, let unknown = fields.keys.sorted().first(where: { $0 != "advance_seconds" && $0 != "now" }) {
                throw HTTPError.invalidField(unknown, "unknown key; send advance_seconds or now")
            }
            guard project.testMode else {
                throw HTTPError.conflict("project \(project.id) is not in test mode: it reads the server's clock, which cannot be moved")
            }
            do {
                return body(project, now: try services.app.clocks.move(project) { current in try target(requested, from: current) })
            } catch ProjectClocks.MoveError.backward(let current) {
                throw HTTPError.conflict("test clocks only move forward: the request asks for a time before the project's now, \(current.iso8601)")
            }
        }
    }

    /// Where the body asks the clock to go: exactly one of `advance_seconds` and `now`.
    static func target(_ body: JSONValue, from current: Timestamp) throws -> Timestamp {
        guard case .object(let fields) = body else { throw HTTPError.badRequest("the body must be a JSON object", code: "invalid_json") }
        if let unknown = fields.keys.sorted().first(where: { $0 != "advance_seconds" && $0 != "now" }) {
            throw HTTPError.invalidField(unknown, "unknown key; send advance_seconds or now")
        }
        switch (fields["advance_seconds"], fields["now"]) {
        case (.number(let seconds)?, nil):
            guard seconds.isFinite, abs(seconds) <= maximumAdvanceSeconds else {
                throw HTTPError.invalidField("advance_seconds", "must be a number of seconds up to \(Int(maximumAdvanceSeconds))")
            }
            return Timestamp(milliseconds: current.milliseconds + Int64((seconds * 1000).rounded()))
        case (nil, .string(let text)?):
            guard let time = Timestamp(iso8601: text) else {
                throw HTTPError.invalidField("now", "expected an ISO 8601 time such as 2026-11-21T10:00:00Z")
            }
            guard abs(Double(time.milliseconds - current.milliseconds)) <= maximumAdvanceSeconds * 1000 else {
                throw HTTPError.invalidField("now", "must be within ten years of the project's clock")
            }
            return time
        case (_?, _?): throw HTTPError.badRequest("send advance_seconds or now, not both", code: "invalid_field")
        case (nil, nil): throw HTTPError.badRequest("send advance_seconds (a number) or now (an ISO 8601 time)", code: "invalid_field")
        case (_?, nil): throw HTTPError.invalidField("advance_seconds", "expected a number of seconds")
        case (nil, _?): throw HTTPError.invalidField("now", "expected an ISO 8601 time string")
        }
    }

    static func body(_ project: Project, now: Timestamp) -> HTTPResponse {
        .json(
            bytes: JSONValue.object([
                "project_id": .string(project.id),
                "test_mode": .bool(project.testMode),
                "now": .string(now.iso8601),
                "now_ms": .number(Double(now.milliseconds)),
            ]).serialized())
    }
}
