import App
import Attribution
import HTTP

/// What a request's Host means for the link host: a project's own domain serves that project's
/// links and files only; any other name serves every project as before domains existed.
enum ProjectHosts {
    /// The project domain the request was sent to, or nil for any other Host.
    static func claim(of request: HTTPRequest, services: Services) throws -> ProjectDomain? {
        // Every click asks: without any domain, no Host is parsed and lower-cased.
        guard try services.app.domains.anyClaimed(), let host = request.hostName else { return nil }
        return try services.app.domains.claim(ofHost: host)
    }
}
