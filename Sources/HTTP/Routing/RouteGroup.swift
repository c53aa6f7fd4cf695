/// Checks a request before its route's handler runs, and refuses it by throwing (an `HTTPError`
/// becomes the answer). Runs where the handler would run first: on the event loop for inline
/// and deferred routes, so it must not block.
public typealias RouteGuard = @Sendable (HTTPRequest) throws -> Void

/// Routes under one path prefix that share guards, registered through `RouterBuilder.group`: the
/// guard is written once in the URL map instead of inside every handler, and no route of the
/// group can be added without it.
public struct RouteGroup {
    let prefix: String
    let guards: [RouteGuard]
    fileprivate var entries: [(HTTPMethod, String, RouteHandler)] = []

    /// A route at `prefix + path` (`path` "" is the prefix itself).
    public mutating func on(_ method: HTTPMethod, _ path: String, _ handler: RouteHandler) {
        entries.append((method, prefix + path, Self.guarded(handler, by: guards)))
    }

    /// A nested group under `prefix + path`, with this group's guards first.
    public mutating func group(_ path: String, guardedBy check: RouteGuard? = nil, _ routes: (inout RouteGroup) -> Void) {
        var nested = RouteGroup(prefix: prefix + path, guards: check.map { guards + [$0] } ?? guards)
        routes(&nested)
        entries += nested.entries
    }

    static func guarded(_ handler: RouteHandler, by guards: [RouteGuard]) -> RouteHandler {
        guard !guards.isEmpty else { return handler }
        let check: RouteGuard = { request in for check in guards { try check(request) } }
        switch handler {
        case .sync(let handle):
            return .sync { request in
                try check(request)
                return try handle(request)
            }
        case .inline(let handle):
            return .inline { request in
                try check(request)
                return try handle(request)
            }
        case .deferred(let handle):
            return .deferred { request, done in
                do { try check(request) } catch { return done(.failure(error)) }
                handle(request, done)
            }
        case .pooled(let handle):
            return .pooled { request, done in
                do { try check(request) } catch { return done(.failure(error)) }
                handle(request, done)
            }
        }
    }
}

extension RouterBuilder {
    /// Routes under `prefix`, each behind `check`.
    public mutating func group(_ prefix: String, guardedBy check: RouteGuard? = nil, _ routes: (inout RouteGroup) -> Void) {
        var group = RouteGroup(prefix: prefix, guards: check.map { [$0] } ?? [])
        routes(&group)
        for (method, pattern, handler) in group.entries { on(method, pattern, handler) }
    }

    /// Every registered route as (method, pattern), in registration order.
    public var routes: [(method: HTTPMethod, pattern: String)] { entries.map { ($0.method, $0.pattern) } }
}

extension HTTPRequest {
    /// The path parameter `name` of the matched route; 404 naming it when the route has none or
    /// it is empty (a route and its handler that disagree on names is a programming error, but
    /// it must not answer as if the resource were "").
    public func parameter(_ name: String) throws -> String {
        guard let value = pathParameters[name], !value.isEmpty else {
            throw HTTPError.notFound("no \(name) in \(path)")
        }
        return value
    }
}
