import HTTP
import StoreContracts

/// The dashboard's page frame and responses: server-rendered HTML that works without JavaScript,
/// one stylesheet from the binary (content-hashed, cached for a year), and the security headers
/// of the interstitial — a CSP that allows this server's stylesheet and nothing inline.
enum DashboardPage {
    /// Shown on a narrow screen (the stylesheet's `narrow-only`) where a table leaves columns out.
    static let narrowNote: HTML =
        #"<p class="muted narrow-only">Some columns are left out on a narrow screen: turn it sideways or widen the window to see them all.</p>"#

    static let seeOther = HTTPStatus(code: 303, reasonPhrase: "See Other")

    static func redirect(to location: String, cookie: String? = nil) -> HTTPResponse {
        var headers: HTTPHeaders = ["Location": location, "Cache-Control": "no-store"]
        if let cookie { headers.add("Set-Cookie", cookie) }
        return HTTPResponse(status: seeOther, headers: headers)
    }

    /// A full page around `body`.
    static func render(
        title: String, prefix: String, viewer: DashboardViewer?, projectNav: (id: String, name: String, current: String)? = nil,
        body: HTML, status: HTTPStatus = .ok, headers extra: HTTPHeaders = [:]
    ) -> HTTPResponse {
        var header: HTML = #"<header><a class="brand" href="\#(prefix)/">attributiond</a>"#
        if let projectNav {
            let base = "\(prefix)/projects/\(projectNav.id)"
            header += #"<nav><span class="project">\#(projectNav.name)</span>"#
            let adminPages = viewer?.canChange(projectID: projectNav.id) ?? false
            let pages =
                [
                    ("", "Overview"), ("/breakdowns", "Breakdowns"), ("/cohorts", "Cohorts"), ("/links", "Links"), ("/installs", "Installs"),
                    ("/cost", "Cost"), ("/roas", "ROAS"), ("/traffic-quality", "Traffic quality"), ("/skan", "SKAN"), ("/connect", "Connect"),
                ]
                + (adminPages ? [("/outbound", "Outbound"), ("/ad-platforms", "Ad platforms"), ("/settings", "Settings")] : [])
            for (path, label) in pages {
                let current: HTML = projectNav.current == label ? #" aria-current="page""# : ""
                header += #"<a href="\#(base)\#(path)"\#(current)>\#(label)</a>"#
            }
            header += "</nav>"
        }
        if let viewer {
            header +=
                #"<form class="signout" method="post" action="\#(prefix)/sign-out">\#(csrfField(viewer))<span>\#(viewer.name)</span> <button>Sign out</button></form>"#
        }
        header += "</header>"
        let note: HTML = body.markup.contains(#"class="hide-narrow""#) ? narrowNote : ""
        let html: HTML = """
            <!doctype html><html lang="en"><head><meta charset="utf-8">\
            <meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">\
            <title>\(title) · attributiond</title>\
            <link rel="stylesheet" href="\(prefix)/assets/\(DashboardAssets.stylesheetName)">\
            <script src="\(prefix)/assets/\(DashboardAssets.scriptName)" defer></script></head>\
            <body>\(header)<main>\(note)\(body)</main></body></html>
            """
        var headers: HTTPHeaders = [
            "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
            "Content-Security-Policy":
                "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
            "Referrer-Policy": "same-origin", "X-Frame-Options": "DENY",
        ]
        for field in extra { headers.add(field.name, field.value) }
        return HTTPResponse(status: status, headers: headers, body: html.bytes)
    }

    static func message(status: HTTPStatus, title: String, text: String, prefix: String, viewer: DashboardViewer? = nil) -> HTTPResponse {
        render(
            title: title, prefix: prefix, viewer: viewer, body: "<h1>\(title)</h1><p>\(text)</p><p><a href=\"\(prefix)/\">Back to projects</a></p>",
            status: status)
    }

    /// The form field every dashboard POST carries.
    static func csrfField(_ viewer: DashboardViewer) -> HTML {
        #"<input type="hidden" name="csrf" value="\#(viewer.session.csrfToken)">"#
    }
}
