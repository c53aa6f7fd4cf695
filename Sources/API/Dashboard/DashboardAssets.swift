import Cryptography
import HTTP
import StoreContracts

/// Files the dashboard's pages load, built into the binary. Each is named by a hash of its bytes,
/// so it can be cached for good and a new build is fetched at once.
enum DashboardAssets {
    static let stylesheet = Array(
        """
        *{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d232b;background:#f6f7f9}
        header{display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;align-items:center;padding:.6rem 1.25rem;background:#14202e;color:#fff}
        header a{color:#cfe0f5;text-decoration:none}header a[aria-current]{color:#fff;font-weight:600;border-bottom:2px solid #6cb2ff}
        .brand{font-weight:700;color:#fff}nav{display:flex;flex-wrap:wrap;gap:1rem;align-items:center}.project{color:#8fa3b8}
        .signout{margin-left:auto;display:flex;gap:.5rem;align-items:center;color:#8fa3b8}
        main{max-width:1180px;margin:0 auto;padding:1.25rem}h1{font-size:1.4rem;margin:.2rem 0 1rem}h2{font-size:1.1rem;margin:1.5rem 0 .6rem}
        .cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(165px,1fr));gap:.75rem}
        .card{background:#fff;border:1px solid #e1e5ea;border-radius:8px;padding:.75rem 1rem}
        .card b{display:block;font-size:1.45rem}.card small{color:#5b6775}.card .change{display:block}
        table{width:100%;border-collapse:collapse;background:#fff;border:1px solid #e1e5ea;border-radius:8px;overflow:hidden}
        th,td{text-align:left;padding:.45rem .7rem;border-bottom:1px solid #eef1f4;vertical-align:top}th{background:#fafbfc;font-weight:600}
        td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}.muted{color:#5b6775}.bot{color:#a4560b}.badge{font-size:.55em;vertical-align:middle;padding:.15em .5em;border-radius:.8em;background:#fdf0d5;color:#7a4a00}
        .ranges{display:flex;flex-wrap:wrap;gap:.4rem;margin-bottom:1rem;align-items:center}.ranges form{display:flex;flex-wrap:wrap;gap:.4rem;
        align-items:center}.ranges label{display:flex;gap:.3rem;align-items:center;font-weight:400}.ranges a{padding:.25rem .7rem;border:1px solid #c9d2dc;border-radius:999px;
        text-decoration:none;color:#1d232b;background:#fff}.ranges a[aria-current]{background:#14202e;color:#fff;border-color:#14202e}
        form.stack,div.stack{display:grid;grid-template-columns:minmax(0,1fr);gap:.6rem;max-width:520px;background:#fff;border:1px solid #e1e5ea;border-radius:8px;padding:1rem;
        align-content:start}.stack h2{margin:0}
        label{display:grid;grid-template-columns:minmax(0,1fr);gap:.2rem;font-weight:600}input,select,textarea{font:inherit;padding:.4rem .5rem;border:1px solid #c9d2dc;border-radius:6px}
        textarea{font-family:ui-monospace,monospace;font-size:.85rem}[aria-invalid]{border-color:#b42318}
        button{font:inherit;padding:.4rem .9rem;border:0;border-radius:6px;background:#1f6feb;color:#fff;cursor:pointer}
        button.danger{background:#c62828}button.plain{background:#fff;color:#1d232b;border:1px solid #c9d2dc}
        label.check{display:flex;gap:.5rem;align-items:center;font-weight:400}fieldset{border:1px solid #e1e5ea;border-radius:8px;display:grid;gap:.5rem}.error{color:#b42318;font-weight:400}.notice{background:#fff8e1;border:1px solid #f2d88c;
        padding:.6rem .9rem;border-radius:8px;overflow-wrap:anywhere}.chart{background:#fff;border:1px solid #e1e5ea;border-radius:8px;padding:.5rem}
        pre{white-space:pre-wrap;overflow-wrap:anywhere}svg{max-width:100%;height:auto}.legend{display:flex;gap:1rem;font-size:.9rem}.legend i{display:inline-block;width:.8rem;height:.8rem;
        margin-right:.3rem;border-radius:2px}.k0{background:#1f6feb}.k1{background:#2da44e}.k2{background:#8c959f}.k3{background:#bf8700}
        .grid2{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:1rem}.inline{display:inline}.narrow-only{display:none}.narrow-chart{display:none}
        .heat1{background:#f1f7ff}.heat2{background:#dcebff}.heat3{background:#c3dcff}.heat4{background:#a5c9fb}.heat5{background:#86b5f5}
        td.wrap{overflow-wrap:anywhere}td.title{min-width:8rem;max-width:22rem}details{border:1px solid #e1e5ea;border-radius:6px;padding:.45rem .7rem}summary{cursor:pointer;font-weight:600}
        details[open]>summary{margin-bottom:.5rem}.stack-fields{display:grid;gap:.6rem}
        .getting-started{margin-bottom:1rem}.getting-started>b{font-size:1.1rem}.getting-started ol{margin:.4rem 0 0;padding-left:1.2rem}.getting-started .done{color:#2da44e}
        @media (max-width:600px){main{padding:.75rem}.wide-chart{display:none}.narrow-chart{display:block}th,td{padding:.35rem .4rem}.hide-narrow{display:none}.narrow-only{display:block}.signout{margin-left:0}
        table{display:block;overflow-x:auto;background:linear-gradient(to right,#fff 30%,#fff0) 0 0/2rem 100% no-repeat local,
        linear-gradient(to left,#fff 30%,#fff0) 100% 0/2rem 100% no-repeat local,
        radial-gradient(farthest-side at 0 50%,#0003,#0000) 0 0/.8rem 100% no-repeat scroll,
        radial-gradient(farthest-side at 100% 50%,#0003,#0000) 100% 0/.8rem 100% no-repeat scroll,#fff}
        input,select{max-width:100%}code{overflow-wrap:anywhere}
        tbody th:first-child,tbody td:first-child{position:sticky;left:0;background:#fff;z-index:1}}
        """.utf8)

    static let stylesheetName = "dashboard.\(Secrets.sha256Hex(String(decoding: stylesheet, as: UTF8.self)).prefix(12)).css"

    /// The pages work without it; it only adds what needs a script: copy buttons (`data-copy`),
    /// which show themselves once it runs.
    static let script = Array(
        """
        document.querySelectorAll('button[data-copy]').forEach(function(b){b.hidden=false;b.addEventListener('click',function(){
        var t=b.getAttribute('data-copy');function done(){b.textContent='Copied';setTimeout(function(){b.textContent='Copy'},1500)}
        if(navigator.clipboard){navigator.clipboard.writeText(t).then(done,function(){window.prompt('Copy the link',t)})}
        else{window.prompt('Copy the link',t)}})});
        """.utf8)

    static let scriptName = "dashboard.\(Secrets.sha256Hex(String(decoding: script, as: UTF8.self)).prefix(12)).js"

    /// `GET {prefix}/assets/:name`: no session needed.
    static let route = RouteHandler.inline { request in
        let name = try request.parameter("name")
        guard let response = serve(name) else { throw HTTPError.notFound("no dashboard asset \(name)") }
        return response
    }

    static func serve(_ name: String) -> HTTPResponse? {
        let (body, type): ([UInt8], String)
        switch name {
        case stylesheetName: (body, type) = (stylesheet, "text/css; charset=utf-8")
        case scriptName: (body, type) = (script, "text/javascript; charset=utf-8")
        default: return nil
        }
        return HTTPResponse(
            status: .ok,
            headers: [
                "Content-Type": type, "X-Content-Type-Options": "nosniff", "Cache-Control": "public, max-age=31536000, immutable",
            ], body: body)
    }
}
