import Attribution
import HTTP

/// `?d=1` on any link: where a tap would go from each kind of device, as a table, with no click
/// recorded (FDL's debug page, for links of every kind).
enum LinkDebugPage {
    static let devices: [(name: String, platform: UserAgentInfo.Platform, iPad: Bool)] = [
        ("iPhone", .ios, false), ("iPad", .ios, true), ("Android", .android, false), ("Desktop", .desktop, false),
        ("Link preview fetcher (bot)", .bot, false),
    ]

    static func response(_ target: LinkTarget, url: String) -> HTTPResponse {
        let rows = devices.map { device -> HTML in
            let outcome: String
            switch target.response(for: device.platform, clickID: "<click id>", utm: target.utm, iPad: device.iPad) {
            case .interstitial(let destination, let appURL):
                outcome = "the opening page: " + (appURL.map { "tries the app at \($0), then " } ?? "") + "goes to \(destination)"
            case .redirect(let destination): outcome = "redirected (302) to \(destination)"
            case .preview: outcome = "the preview page (Open Graph tags), no redirect"
            case .noDestination: outcome = "nowhere: the link has no destination for it (404)"
            }
            return "<tr><th>\(device.name)</th><td>\(outcome)</td></tr>"
        }
        let parameters =
            target.link.fdl.map { fdl in
                fdl.parameters.sorted { $0.key < $1.key }.map { parameter -> HTML in
                    "<tr><th><code>\(parameter.key)</code></th><td>\(parameter.value)</td></tr>"
                }
            } ?? []
        let fdlTable: HTML = parameters.isEmpty ? "" : "<h2>Firebase Dynamic Links parameters</h2><table><tbody>\(parameters)</tbody></table>"
        let html: HTML = """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">\
            <meta name="robots" content="noindex"><title>How \(url) resolves</title></head><body>\
            <h1>How this link resolves</h1><p><code>\(url)</code></p>\
            <p>A person with the app installed opens it directly (universal link / app link); without it:</p>\
            <table><tbody>\(rows)</tbody></table>\
            <p>The app receives <code>\(target.deepLink(base: url))</code>.</p>\
            \(fdlTable)\
            <p>This page records no click.</p></body></html>
            """
        return Pages.htmlResponse(html)
    }
}
