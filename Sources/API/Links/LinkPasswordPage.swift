import App
import Attribution
import Cryptography
import Dispatch
import HTTP

/// The page a link with a password shows before any redirect: a plain form (no script) that
/// posts the password back to the link's own address, query included (its UTM values with it).
/// No click is recorded until the password is right.
enum LinkPasswordPage {
    static func response(for request: HTTPRequest, status: HTTPStatus = .ok, failed: Bool = false) -> HTTPResponse {
        // The path and query only: an absolute-form target must not send the password elsewhere.
        let action = String(request.path) + (request.query.map { "?" + $0 } ?? "")
        let note: HTML = failed ? #"<p role="alert">That password is not right. Try again.</p>"# : ""
        let html: HTML = """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">\
            <meta name="robots" content="noindex"><title>Password required</title></head>\
            <body><h1>Password required</h1><p>This link is protected. Enter its password to continue.</p>\(note)\
            <form method="post" action="\(action)"><label>Password <input type="password" name="password" required \
            autocomplete="current-password" autofocus></label> <button type="submit">Continue</button></form></body></html>
            """
        return Pages.htmlResponse(html, status: status, headers: ["Referrer-Policy": "no-referrer"])
    }

    static func tooManyAttempts(retryAfter seconds: Double) -> HTTPResponse {
        Pages.htmlResponse(
            Pages.message("Too many attempts", "Too many wrong passwords from your network. Wait a minute and try again."),
            status: .tooManyRequests, headers: ["Retry-After": String(retryAfterSeconds(seconds))])
    }
}

/// `POST /{code}` and `/{slug}/{code}`: a password page's form. Runs off the event loop (the
/// hash takes milliseconds); wrong passwords spend the client's budget, shared with nothing else.
enum LinkPasswordRoutes {
    static func submit(_ services: Services) -> RouteHandler {
        LinkAddressed.handler { request, code, slug in
            let host = try ProjectHosts.claim(of: request, services: services)
            guard let (_, target) = try services.app.links.resolve(code: code, slug: slug, on: host) else {
                return DeadEndPage.response(.notFound, project: try host.flatMap { try services.app.projects.cachedProject(id: $0.projectID) })
            }
            guard let stored = target.link.passwordHash else {
                return try ClickRoutes.click(request, code: code, slug: slug, services: services)
            }
            let client = services.clientIP.clientAddress(of: request)?.clientKey ?? .unknown
            // Every attempt takes its token before the hash and a right one gives it back: checking
            // first and spending after the hash let 16 connections guess 106 times against 13.
            if let wait = services.linkPasswordFailures.retryAfter(client: client, now: DispatchTime.now().uptimeNanoseconds) {
                return LinkPasswordPage.tooManyAttempts(retryAfter: wait)
            }
            let password = (try? DashboardForm(request))?["password"] ?? ""
            guard !password.isEmpty, PasswordHash.verify(password, stored: stored) else {
                return LinkPasswordPage.response(for: request, status: .unauthorized, failed: true)
            }
            services.linkPasswordFailures.refund(client: client)
            return try ClickRoutes.click(request, code: code, slug: slug, services: services, passwordGiven: true)
        }
    }
}
