import Attribution
import Foundation
import TestSupport
import Testing

@testable import API

@Suite struct QRCodeRouteTests {
    @Test func aLinksQRCodeEncodesItsPublicURLAndRecordsNoClick() throws {
        let app = try TestApp(publicURL: "https://go.shop.example")
        let (_, _, link) = try app.projectWithLink()
        #expect(link["qr_url"] as? String == "https://go.shop.example/summer/qr")
        let response = try app.request("GET", "/summer/qr", adminKey: nil, headers: ["User-Agent": safariIPhone])
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "image/svg+xml")
        #expect(response.header("Cache-Control") == "public, max-age=86400")
        #expect(response.bodyText == (try QRCode(text: "https://go.shop.example/summer", correction: .medium)).svg(margin: 4))
        try app.settle()
        #expect(try app.count("SELECT count(*) FROM clicks") == 0)
    }

    @Test func theLevelAndMarginCanBeChosen() throws {
        let app = try TestApp(publicURL: "https://go.shop.example")
        _ = try app.projectWithLink()
        let response = try app.request("GET", "/summer/qr?ecc=h&margin=0", adminKey: nil)
        #expect(response.status == 200)
        #expect(response.bodyText == (try QRCode(text: "https://go.shop.example/summer", correction: .high)).svg(margin: 0))
    }

    @Test func aTemplatedLinksQRCodeCarriesItsSlug() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        _ = try app.request("POST", "/admin/v1/projects/\(projectID)/templates", json: #"{"slug":"promo"}"#)
        let created = try app.request("POST", "/admin/v1/projects/\(projectID)/links", json: #"{"short_code":"slugged","template_slug":"promo"}"#)
        #expect(created.json?["qr_url"] as? String == "http://test/promo/slugged/qr")
        for path in ["/promo/slugged/qr", "/slugged/qr"] {
            let response = try app.request("GET", path, adminKey: nil)
            #expect(response.status == 200)
            #expect(response.bodyText == (try QRCode(text: "http://test/promo/slugged")).svg(), "\(path)")
        }
        let wrongSlug = try app.request("GET", "/other/slugged/qr", adminKey: nil)
        #expect(wrongSlug.status == 404)
        #expect(wrongSlug.json?["message"] as? String == "no link with code 'slugged' under template 'other'")
    }

    @Test func badRequestsGetAJSONErrorNamingTheProblem() throws {
        let app = try TestApp()
        _ = try app.projectWithLink()
        let unknown = try app.request("GET", "/nothing-here/qr", adminKey: nil)
        #expect(unknown.status == 404)
        #expect(unknown.json?["message"] as? String == "no link with code 'nothing-here'")
        for (query, field) in [("ecc=X", "ecc"), ("ecc=", "ecc"), ("margin=17", "margin"), ("margin=-1", "margin"), ("margin=two", "margin")] {
            let response = try app.request("GET", "/summer/qr?\(query)", adminKey: nil)
            #expect(response.status == 422, "\(query)")
            #expect(response.json?["error"] as? String == "invalid_field")
            #expect((response.json?["message"] as? String)?.hasPrefix("\(field): ") == true, "\(query)")
        }
    }
}
