import Attribution
import HTTP

/// Out of in-app browsers (Instagram, Facebook, TikTok…), whose webviews open neither universal
/// links nor app links: the tap is recorded once, in the webview, then handed to the system
/// browser carrying `_esc=<click id>` (so that the browser's request follows the link without a
/// second click), and the link's query (UTM included) as it came.
enum InAppEscape {
    static let marker = "_esc"
    /// How long after the webview's tap the browser's request may continue it.
    static let maximumAgeSeconds: Int64 = 600

    /// The click a request continues, when it is the browser's half of an escape.
    static func continuedClick(_ request: HTTPRequest) -> String? {
        guard let id = request.queryValue(marker), (16...64).contains(id.utf8.count),
            id.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) })
        else { return nil }
        return id
    }

    /// The tap's own URL on `base` (https), with the escape's marker.
    static func continuation(of request: HTTPRequest, base: String, clickID: String) -> String {
        let kept = request.queryItems.filter { $0.name != marker }.map { ($0.name, $0.value) }
        return URLQuery.appending(kept + [(marker, clickID)], to: base + String(request.path))
    }

    /// Android: the same URL in Chrome (an `intent:` URL these webviews hand to the system), and
    /// back to it in the webview if Chrome is missing.
    static func android(_ url: String, clickID: String) -> HTTPResponse {
        let scheme = url.hasPrefix("http://") ? "http" : "https"
        let withoutScheme = String(url.dropFirst(scheme.count + 3))
        let intent = "intent://\(withoutScheme)#Intent;scheme=\(scheme);package=com.android.chrome;S.browser_fallback_url=\(URLQuery.encode(url));end"
        return HTTPResponse(status: .found, headers: ["Location": intent, "Cache-Control": "no-store", "X-Click-Id": clickID])
    }

    /// iOS: a page that says where the person is and offers Safari (`x-safari-https:` — or
    /// `x-safari-http:` — which opens Safari from iOS 17), copying the link for pasting, or going
    /// on here.
    static func iOS(_ url: String, appName: String, browser: String, here destination: String, clickID: String) -> HTTPResponse {
        let safari = "x-safari-" + url
        let html: HTML = """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">\
            <meta name="robots" content="noindex"><title>Open in Safari</title><style>body{font:17px system-ui,sans-serif;margin:2em auto;\
            max-width:28em;padding:0 1em;color:#222}a.button{display:block;text-align:center;padding:.8em;margin:.6em 0;border-radius:.5em;\
            background:#06c;color:#fff;text-decoration:none}a.plain{color:#06c}</style></head><body>\
            <h1>Open \(appName) in Safari</h1>\
            <p>\(browser)'s browser cannot open the app. Open this link in Safari to continue.</p>\
            <a class="button" id="safari" href="\(safari)">Open in Safari</a>\
            <p>Or copy the link and paste it in Safari:</p><p><code id="link">\(url)</code></p>\
            <p><a class="plain" href="\(destination)">Continue here instead</a></p></body></html>
            """
        // The page runs no script and loads nothing: its policy says so, as every other page's does.
        return Pages.htmlResponse(
            html,
            headers: [
                "Referrer-Policy": "no-referrer", "X-Click-Id": clickID,
                "Content-Security-Policy":
                    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
            ])
    }
}
