import App
import Attribution
import HTTP

/// The pages a tap ends on when a link cannot send it anywhere (unknown, disabled, expired, or
/// with no destination for the device): styled like a page of the app's own, naming the project
/// when it is known and offering its store pages and website as the way on.
enum DeadEndPage {
    enum Reason {
        case notFound, expired, noDestination

        var title: String {
            switch self {
            case .notFound: "Link not found"
            case .expired: "Link expired"
            case .noDestination: "Nothing to open"
            }
        }

        var text: String {
            switch self {
            case .notFound: "This link does not exist or is no longer active."
            case .expired: "This link has expired."
            case .noDestination: "This link has no destination for this device."
            }
        }

        var status: HTTPStatus { self == .expired ? .gone : .notFound }
    }

    /// Inline, and allowed by the page's own policy: no script runs, nothing else loads.
    static let style: HTML =
        "body{margin:0;font:17px/1.5 system-ui,-apple-system,\"Segoe UI\",sans-serif;color:#1d232b;background:#f6f7f9}"
        + "main{max-width:28rem;margin:12vh auto;padding:1.5rem;background:#fff;border:1px solid #e1e5ea;border-radius:12px}"
        + "h1{font-size:1.35rem;margin:0 0 .5rem}p{margin:.4rem 0}.project{color:#5b6775;font-size:.95rem}"
        + ".ways{display:grid;gap:.5rem;margin-top:1rem}.ways a{display:block;text-align:center;padding:.65rem;border-radius:8px;"
        + "background:#1f6feb;color:#fff;text-decoration:none;font-weight:600}"

    /// - Parameters:
    ///   - name: the project's, when known; `settings` its store pages and website.
    static func response(_ reason: Reason, name: String?, settings: ProjectSettings?, headers extra: HTTPHeaders = [:]) -> HTTPResponse {
        var headers = extra
        headers.add(
            "Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
        return Pages.htmlResponse(html(reason, name: name, settings: settings), status: reason.status, headers: headers)
    }

    static func response(_ reason: Reason, project: Project?) -> HTTPResponse {
        guard let project else { return reason == .notFound ? unknownCode : response(reason, name: nil, settings: nil) }
        return response(reason, name: project.name, settings: project.settings)
    }

    /// A code no project has, on the server's own name: what scanners mostly get, built once.
    static let unknownCode = response(.notFound, name: nil, settings: nil)

    static func html(_ reason: Reason, name: String?, settings: ProjectSettings?) -> HTML {
        let ways = settings.map(Self.ways(of:)) ?? []
        let links = ways.map { way -> HTML in #"<a href="\#(way.url)">\#(way.label)</a>"# }
        let project: HTML = name.map { #"<p class="project">\#($0)</p>"# } ?? ""
        let wayOn: HTML = links.isEmpty ? "" : #"<div class="ways">\#(links)</div>"#
        return """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">\
            <meta name="robots" content="noindex"><title>\(reason.title)</title><style>\(style)</style></head>\
            <body><main>\(project)\
            <h1>\(reason.title)</h1><p>\(reason.text)</p>\
            \(wayOn)</main></body></html>
            """
    }

    /// The project's store pages and website, where it has them.
    static func ways(of settings: ProjectSettings) -> [(label: String, url: String)] {
        [
            ("Get it on the App Store", settings.iosStoreURL), ("Get it on Google Play", settings.androidStoreURL),
            ("Visit the website", settings.webURL),
        ]
        .compactMap { label, url in url.map { (label, $0) } }
    }
}
