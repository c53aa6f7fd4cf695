import App
import Attribution
import HTTP
import StoreContracts

/// The link behind an app-side open (LinkForty's resolve, WarpLink's resolve, Linkrunner's
/// handle-deeplink): looked up as a tap does, and only within the project whose credential asked.
/// An open gives the link's destinations and records a click, so it is held to what a tap is held
/// to: a link switched off or expired is not found, and a password-protected one gives nothing
/// (the app was not shown the password page).
enum AppOpenLinks {
    enum Refusal: Error {
        case notFound
        case passwordProtected
    }

    /// The project's link for `code`: `hosts` are the names the open came through, in order of
    /// trust (the domain the SDK names, the request's Host); the first that is the project's own
    /// domain is searched first.
    static func find(
        code: String, slug: String?, project: Project, openedOn hosts: [String?], services: Services
    ) throws -> (entry: LinkCache.Entry, target: LinkTarget)? {
        var claim: ProjectDomain?
        for case let name? in hosts {
            if let found = try services.app.domains.claim(ofHost: name), found.projectID == project.id {
                claim = found
                break
            }
        }
        return try services.app.links.resolve(
            code: code, slug: slug, inProject: project.id, on: claim, projectDomains: try services.app.domains.names(ofProject: project.id))
    }

    /// Why a found link may not answer this open, or nil when it may. A spent click budget still
    /// answers: the person was already sent to the app.
    static func refusal(_ target: LinkTarget, now: Timestamp) -> Refusal? {
        if [.inactive, .expired].contains(LinkAvailability.of(target.link, clicks: 0, now: now)) { return .notFound }
        if target.link.passwordHash != nil { return .passwordProtected }
        return nil
    }
}
