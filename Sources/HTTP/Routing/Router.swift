import Dispatch

/// An immutable route tree. Matching walks one node per path segment; literal children are tried
/// before the parameter child, with backtracking, so the most specific route wins.
public final class Router: RoutedResponder {
    final class Node: Sendable {
        let literals: [String: Node]
        let parameter: Node?
        struct Route: Sendable {
            let handler: RouteHandler
            let pattern: String
            /// Names of the pattern's `:parameters` in order: each route names its own, so
            /// `/:code` and `/:slug/:code` can share the first node.
            let parameterNames: [String]
        }

        let routes: [HTTPMethod: Route]
        /// `Allow` header value for a 405 here, computed once.
        let allow: String

        init(entries: [(segments: ArraySlice<Substring>, entry: RouterBuilder.Entry)]) {
            var routes: [HTTPMethod: Route] = [:]
            var literalGroups: [String: [(ArraySlice<Substring>, RouterBuilder.Entry)]] = [:]
            var parameterGroup: [(ArraySlice<Substring>, RouterBuilder.Entry)] = []
            for (segments, entry) in entries {
                guard let first = segments.first else {
                    let names = Router.segments(of: Substring(entry.pattern)).filter { $0.hasPrefix(":") }.map { String($0.dropFirst()) }
                    routes[entry.method] = Route(handler: entry.handler, pattern: entry.pattern, parameterNames: names)
                    continue
                }
                if first.hasPrefix(":") {
                    parameterGroup.append((segments.dropFirst(), entry))
                } else {
                    literalGroups[String(first), default: []].append((segments.dropFirst(), entry))
                }
            }
            self.routes = routes
            self.literals = literalGroups.mapValues { Node(entries: $0) }
            self.parameter = parameterGroup.isEmpty ? nil : Node(entries: parameterGroup)
            var methods = Set(routes.keys.map(\.rawValue))
            if routes[.get] != nil { methods.insert("HEAD") }
            self.allow = methods.sorted().joined(separator: ", ")
        }
    }

    private let root: Node
    /// Where `.sync` and `.pooled` handlers run, off the event loops: the server's one handler pool.
    private let handlerQueue = DispatchQueue(label: "attributiond.handlers", qos: .userInitiated, attributes: .concurrent)
    private let reserved: Set<String>
    private let notFound: @Sendable (HTTPRequest) -> HTTPResponse
    private let errorResponse: @Sendable (any Error, HTTPRequest) -> HTTPResponse

    init(_ builder: RouterBuilder) {
        root = Node(entries: builder.entries.map { (Self.segments(of: Substring($0.pattern))[...], $0) })
        reserved = builder.reservedFirstSegments
        notFound = builder.notFound
        errorResponse = builder.errorResponse
    }

    public enum Match {
        case found(RouteHandler, pattern: String, parameters: [String: String])
        /// The path exists but not for this method.
        case methodNotAllowed(allow: String)
        case notFound
    }

    public func match(method: HTTPMethod, path: Substring) -> Match {
        let segments = Self.segments(of: path)
        var captured: [Substring] = []
        guard let node = find(root, segments[...], depth: 0, captured: &captured) else { return .notFound }
        // RFC 9110 §9.3.2: HEAD is answered as GET would be, without the body.
        let route = node.routes[method] ?? (method == .head ? node.routes[.get] : nil)
        guard let route else { return .methodNotAllowed(allow: node.allow) }
        var parameters: [String: String] = [:]
        for (name, value) in zip(route.parameterNames, captured) {
            parameters[name] = PercentDecoding.decode(value, plusAsSpace: false)
        }
        return .found(route.handler, pattern: route.pattern, parameters: parameters)
    }

    /// Only the pattern a request would match (for logs and metrics): no parameters decoded.
    public func pattern(method: HTTPMethod, path: Substring) -> String? {
        let segments = Self.segments(of: path)
        var captured: [Substring] = []
        guard let node = find(root, segments[...], depth: 0, captured: &captured) else { return nil }
        return (node.routes[method] ?? (method == .head ? node.routes[.get] : nil))?.pattern
    }

    private func find(
        _ node: Node, _ segments: ArraySlice<Substring>, depth: Int,
        captured: inout [Substring]
    ) -> Node? {
        guard let segment = segments.first else { return node.routes.isEmpty ? nil : node }
        let rest = segments.dropFirst()
        if let literal = node.literals[String(segment)], let found = find(literal, rest, depth: depth + 1, captured: &captured) {
            return found
        }
        if let parameter = node.parameter, !segment.isEmpty, !(depth == 0 && reserved.contains(String(segment))) {
            captured.append(segment)
            if let found = find(parameter, rest, depth: depth + 1, captured: &captured) { return found }
            captured.removeLast()
        }
        return nil
    }

    /// "/a/b" → ["a", "b"]; "/" → []; a trailing slash leaves an empty last segment, which no
    /// parameter matches, so "/health/" is not "/health".
    static func segments(of path: Substring) -> [Substring] {
        // A byte scan: splitting by Character would walk grapheme clusters on every request.
        let bytes = path.utf8
        var start = bytes.startIndex
        if bytes.first == UInt8(ascii: "/") { start = bytes.index(after: start) }
        if start == bytes.endIndex { return [] }
        var segments: [Substring] = []
        var index = start
        while index < bytes.endIndex {
            if bytes[index] == UInt8(ascii: "/") {
                segments.append(path[start..<index])
                start = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        segments.append(path[start..<bytes.endIndex])
        return segments
    }

    // MARK: - HTTPResponder

    public func respond(to request: HTTPRequest, completion routed: @escaping @Sendable (HTTPResponse, _ pattern: String?) -> Void) {
        var request = request
        switch match(method: request.method, path: request.path) {
        case .notFound:
            routed(notFound(request), nil)
        case .methodNotAllowed(let allow):
            var response = ErrorBody.response(
                status: .methodNotAllowed, code: "method_not_allowed",
                message: "\(request.method) is not allowed here; allowed: \(allow)")
            response.headers.add("Allow", allow)
            routed(response, nil)
        case .found(let handler, let pattern, let parameters):
            request.pathParameters = parameters
            let completion: @Sendable (HTTPResponse) -> Void = { routed($0, pattern) }
            switch handler {
            case .inline(let handle):
                do {
                    completion(try handle(request))
                } catch is MoveToPool {
                    onPool(request, handle, completion)  // a miss on the loop: again, off it
                } catch {
                    completion(errorResponse(error, request))
                }
            case .sync(let handle):
                onPool(request, handle, completion)
            case .deferred(let handle):
                let request = request
                answer(request, handle, completion) { [self] in
                    // Said before anything was handed on: run the handler again off the loop.
                    handlerQueue.async { self.answer(request, handle, completion, movedToPool: nil) }
                }
            case .pooled(let handle):
                let request = request
                handlerQueue.async { self.answer(request, handle, completion, movedToPool: nil) }
            }
        }
    }

    /// Runs a handler that answers at once on the handler pool.
    private func onPool(
        _ request: HTTPRequest, _ handle: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse,
        _ completion: @escaping @Sendable (HTTPResponse) -> Void
    ) {
        let errorResponse = self.errorResponse
        handlerQueue.async {
            do {
                completion(try handle(request))
            } catch {
                completion(errorResponse(error, request))
            }
        }
    }

    /// Runs a handler that answers through its completion, here; `movedToPool` is called instead
    /// of answering when the handler says it must move off the loop (nil: it is off it already).
    private func answer(
        _ request: HTTPRequest,
        _ handle: @Sendable (HTTPRequest, @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void) -> Void,
        _ completion: @escaping @Sendable (HTTPResponse) -> Void, movedToPool: (@Sendable () -> Void)?
    ) {
        let errorResponse = self.errorResponse
        handle(request) { result in
            switch result {
            case .success(let response): completion(response)
            case .failure(is MoveToPool) where movedToPool != nil: movedToPool!()
            case .failure(let error): completion(errorResponse(error, request))
            }
        }
    }

    public static let defaultErrorResponse: @Sendable (any Error, HTTPRequest) -> HTTPResponse = { error, _ in
        if let error = error as? HTTPError { return error.response }
        return ErrorBody.response(
            status: .internalServerError, code: "internal_error",
            message: "the server could not complete the request")
    }
}
