import Attribution
import HTTP

/// The HTML the link host serves. Small, self-contained (no external resources), escaped.
enum Pages {
    /// The page a phone sees after a tap: it reports screen, pixel ratio, time zone and languages to
    /// `POST /c/{clickId}` (image GET as a fallback), tries the app, then goes to `destination`.
    /// Built from fragments encoded once; only the nonce, click id and URLs change per click.
    static func interstitial(clickID: String, destination: String, appURL: String?, nonce: String) -> [UInt8] {
        var page: [UInt8] = []
        page.reserveCapacity(1800 + 4 * destination.utf8.count + (appURL?.utf8.count ?? 0))
        page += InterstitialFragments.head
        Escape.appendHTML(destination, to: &page)
        page += InterstitialFragments.styleOpen
        page += nonce.utf8
        page += InterstitialFragments.bodyOpen
        Escape.appendHTML(destination, to: &page)
        page += InterstitialFragments.scriptOpen
        page += nonce.utf8
        page += InterstitialFragments.beaconVariable
        Escape.appendJavascriptString("/c/" + clickID, to: &page)
        page += InterstitialFragments.destinationVariable
        Escape.appendJavascriptString(destination, to: &page)
        page += InterstitialFragments.appVariable
        Escape.appendJavascriptString(appURL ?? "", to: &page)
        page += InterstitialFragments.scriptBody
        return page
    }

    private enum InterstitialFragments {
        static let head = Array(
            """
            <!doctype html><html lang="en"><head><meta charset="utf-8">\
            <meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">\
            <title>Opening…</title><noscript><meta http-equiv="refresh" content="0;url=
            """.utf8)
        static let styleOpen = Array(#""></noscript><style nonce=""#.utf8)
        static let bodyOpen = Array(
            """
            ">body{font:16px system-ui,sans-serif;display:flex;align-items:center;justify-content:center;\
            min-height:90vh;margin:0;color:#333}a{color:#06c}</style></head><body><p>Opening… <a id="go" href="
            """.utf8)
        static let scriptOpen = Array(#"">Continue</a></p><script nonce=""#.utf8)
        static let beaconVariable = Array(#"">(function(){var c="#.utf8)
        static let destinationVariable = Array(",d=".utf8)
        static let appVariable = Array(",a=".utf8)
        static let scriptBody = Array(
            """
            ;var n=navigator,s={sw:screen.width,sh:screen.height,\
            dpr:window.devicePixelRatio||1,tzo:new Date().getTimezoneOffset(),\
            langs:((n.languages&&n.languages.length)?n.languages:[n.language]).slice(0,10)};\
            try{s.tz=Intl.DateTimeFormat().resolvedOptions().timeZone}catch(e){}var ok=false;\
            try{ok=n.sendBeacon(c,JSON.stringify(s))}catch(e){}if(!ok){var q="sw="+s.sw+"&sh="+s.sh+"&dpr="+s.dpr+\
            "&tzo="+s.tzo+"&langs="+encodeURIComponent(s.langs.join(","));if(s.tz){q+="&tz="+encodeURIComponent(s.tz)}\
            (new Image()).src=c+"?"+q}function go(){location.replace(d)}\
            if(a){setTimeout(go,1500);location.href=a}else{setTimeout(go,ok?0:150)}})();</script></body></html>
            """.utf8)
    }

    /// `Content-Security-Policy` for the interstitial: only its own inline script and style run,
    /// and they may talk to this host only.
    static func interstitialPolicy(nonce: String) -> String {
        "default-src 'none'; script-src 'nonce-\(nonce)'; style-src 'nonce-\(nonce)'; connect-src 'self'; img-src 'self'; "
            + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    /// Open Graph tags for crawlers and link previews (no redirect).
    static func preview(target: LinkTarget, url: String) -> HTML {
        let link = target.link
        let title = link.og.title ?? link.title ?? link.shortCode
        var tags: [HTML] = [
            #"<meta property="og:title" content="\#(title)">"#,
            #"<meta property="og:type" content="website">"#,
            #"<meta property="og:url" content="\#(url)">"#,
        ]
        let description = link.og.description ?? link.description
        if let description { tags.append(#"<meta property="og:description" content="\#(description)">"#) }
        if let image = link.og.image {
            tags.append(#"<meta property="og:image" content="\#(image)">"#)
            tags.append(#"<meta name="twitter:card" content="summary_large_image">"#)
        }
        let paragraph: HTML = description.map { "<p>\($0)</p>" } ?? ""
        return """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>\(title)</title>\(tags)</head>\
            <body><h1>\(title)</h1>\(paragraph)</body></html>
            """
    }

    static func message(_ title: String, _ text: String) -> HTML {
        """
        <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">\
        <meta name="robots" content="noindex"><title>\(title)</title></head>\
        <body><h1>\(title)</h1><p>\(text)</p></body></html>
        """
    }

    static func htmlResponse(_ html: HTML, status: HTTPStatus = .ok, headers extra: HTTPHeaders = [:]) -> HTTPResponse {
        htmlResponse(bytes: html.bytes, status: status, headers: extra)
    }

    static func htmlResponse(bytes: [UInt8], status: HTTPStatus = .ok, headers extra: HTTPHeaders = [:]) -> HTTPResponse {
        var headers: HTTPHeaders = [
            "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store",
            "X-Content-Type-Options": "nosniff",
        ]
        for field in extra { headers.add(field.name, field.value) }
        return HTTPResponse(status: status, headers: headers, body: bytes)
    }

}
