import App
import Foundation
import HTTP
import TestSupport
import Testing

/// The ECB's daily reference rates fetched by the server (its `eurofxref-daily.xml` from a fake
/// on 127.0.0.1), stored as an import of the same day's file would store them.
@Suite struct ExchangeRateFetchTests {
    static let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
        \t<gesmes:subject>Reference rates</gesmes:subject>
        \t<gesmes:Sender><gesmes:name>European Central Bank</gesmes:name></gesmes:Sender>
        \t<Cube>
        \t\t<Cube time='2026-11-27'>
        \t\t\t<Cube currency='USD' rate='1.0400'/>
        \t\t\t<Cube currency='JPY' rate='160.25'/>
        \t\t\t<Cube currency='GBP' rate='0.8321'/>
        \t\t</Cube>
        \t</Cube>
        </gesmes:Envelope>
        """

    @Test func theDailyFileIsFetchedAndStored() throws {
        var router = RouterBuilder()
        router.on(.get, "/stats/eurofxref/eurofxref-daily.xml", RouteHandler.sync { _ in HTTPResponse.json(bytes: Array(Self.xml.utf8)) })
        router.on(.get, "/empty.xml", RouteHandler.sync { _ in HTTPResponse.json(bytes: Array("<Cube></Cube>".utf8)) })
        let ecb = try HTTPServer.loopback(router)
        defer { ecb.shutdownAndWait() }
        let base = "http://127.0.0.1:\(ecb.port)"
        let app = try TestApp(allowPrivateOutbound: true, revenue: RevenueSettings(exchangeRatesURL: base + "/stats/eurofxref/eurofxref-daily.xml"))
        let before = try app.request("POST", "/admin/v1/fx-rates/fetch")
        #expect(before.status == 502 && before.bodyText.contains("outbound requests are not running"), "\(before.bodyText)")
        app.startOutbox()
        let fetched = try app.request("POST", "/admin/v1/fx-rates/fetch")
        #expect(fetched.status == 200 && fetched.json?["days"] as? Int == 1 && fetched.json?["rates"] as? Int == 3, "\(fetched.bodyText)")
        let rates = try app.request("GET", "/admin/v1/fx-rates?day=2026-11-28").json
        #expect(rates?["day"] as? String == "2026-11-27" && (rates?["rates"] as? [String: Any])?["JPY"] as? Double == 160.25)
        #expect(try app.request("POST", "/admin/v1/fx-rates/fetch", adminKey: nil).status == 401)

        let empty = try TestApp(allowPrivateOutbound: true, revenue: RevenueSettings(exchangeRatesURL: base + "/empty.xml"))
        empty.startOutbox()
        let nothing = try empty.request("POST", "/admin/v1/fx-rates/fetch")
        #expect(nothing.status == 502 && nothing.bodyText.contains("held no reference rates"), "\(nothing.bodyText)")
        let off = try TestApp(revenue: RevenueSettings(exchangeRatesURL: nil))
        #expect(try off.request("POST", "/admin/v1/fx-rates/fetch").bodyText.contains("off"))
    }
}
