import HTTP
import StoreContracts

/// The dashboard's page frame and responses: server-rendered HTML that works without JavaScript,
/// one stylesheet from the binary (content-hashed, cached for a year), and the security headers
/// of the interstitial — a CSP that allows this server's stylesheet and nothing inline.
enum DashboardPage {
    /// Shown on a narrow screen (the stylesheet's `narrow-only`) where a table leaves columns out.
    static let narrowNote =
        #"<p class="muted narrow-only">Some columns are left out on a narrow screen: turn it sideways or widen the window to see them all.</p>"#

    static let seeOther = HTTPStatus(code: 303, reasonPhrase: "See Other")

    static func redirect(to location: String, cookie: String? = nil) -> HTTPResponse {
        var headers: HTTPHeaders = ["Location": location, "Cache-Control": "no-store"]
        if let cookie { headers.add("Set-Cookie", cookie) }
        return HTTPResponse(status: seeOther, headers: headers)
    }

    /// A full page: `body` is already-escaped HTML.
    static func render(
        title: String, prefix: String, viewer: DashboardViewer?, projectNav: (id: String, name: String, current: String)? = nil,
        body: String, status: HTTPStatus = .ok, headers extra: HTTPHeaders = [:]
    ) -> HTTPResponse {
        var header = #"<header><a class="brand" href="\#(prefix)/">attributiond</a>"#
        if let projectNav {
            let base = "\(prefix)/projects/\(Escape.html(projectNav.id))"
            header += #"<nav><span class="project">\#(Escape.html(projectNav.name))</span>"#
            let adminPages = viewer?.canChange(projectID: projectNav.id) ?? false
            let pages =
                [
                    ("", "Overview"), ("/breakdowns", "Breakdowns"), ("/cohorts", "Cohorts"), ("/links", "Links"), ("/installs", "Installs"),
                    ("/skan", "SKAN"), ("/connect", "Connect"),
                ]
                + (adminPages ? [("/outbound", "Outbound"), ("/settings", "Settings")] : [])
            for (path, label) in pages {
                let current = projectNav.current == label ? #" aria-current="page""# : ""
                header += #"<a href="\#(base)\#(path)"\#(current)>\#(label)</a>"#
            }
            header += "</nav>"
        }
        if let viewer {
            header +=
                #"<form class="signout" method="post" action="\#(prefix)/sign-out">"#
                + hiddenCSRF(viewer) + #"<span>\#(Escape.html(viewer.name))</span> <button>Sign out</button></form>"#
        }
        header += "</header>"
        let html = """
            <!doctype html><html lang="en"><head><meta charset="utf-8">\
            <meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">\
            <title>\(Escape.html(title)) · attributiond</title>\
            <link rel="stylesheet" href="\(prefix)/assets/\(DashboardAssets.stylesheetName)">\
            <script src="\(prefix)/assets/\(DashboardAssets.scriptName)" defer></script></head>\
            <body>\(header)<main>\(body.contains(#"class="hide-narrow""#) ? narrowNote : "")\(body)</main></body></html>
            """
        var headers: HTTPHeaders = [
            "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
            "Content-Security-Policy":
                "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
            "Referrer-Policy": "same-origin", "X-Frame-Options": "DENY",
        ]
        for field in extra { headers.add(field.name, field.value) }
        return HTTPResponse(status: status, headers: headers, body: Array(html.utf8))
    }

    static func message(status: HTTPStatus, title: String, text: String, prefix: String, viewer: DashboardViewer? = nil) -> HTTPResponse {
        render(
            title: title, prefix: prefix, viewer: viewer,
            body: "<h1>\(Escape.html(title))</h1><p>\(Escape.html(text))</p><p><a href=\"\(prefix)/\">Back to projects</a></p>",
            status: status)
    }

    static func hiddenCSRF(_ viewer: DashboardViewer) -> String {
        #"<input type="hidden" name="csrf" value="\#(Escape.html(viewer.session.csrfToken))">"#
    }
}
