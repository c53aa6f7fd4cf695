import Foundation
import TestSupport
import Testing

/// Numbers a client chooses never reach a conversion or arithmetic that traps: one such request
/// used to take the whole process down (every tenant, every queued click).
@Suite struct TrappingInputTests {
    static func projectWithKey(_ app: TestApp) throws -> (project: String, key: String) {
        let project = try #require(try app.createProject("Shop", extra: #","ios_bundle_id":"com.example.shop""#)["id"] as? String)
        let key = try #require(try app.request("POST", "/admin/v1/projects/\(project)/api-keys").json?["key"] as? String)
        return (project, key)
    }

    @Test func shortLinksWithNumbersBeyondInt64AnswerAndTheServerLives() throws {
        let app = try TestApp()
        let (project, key) = try Self.projectWithKey(app)
        #expect(try app.request("POST", "/admin/v1/projects/\(project)/domains", json: #"{"domain":"shop.page.link"}"#).status == 201)
        for number in ["1e19", "-1e19", "1e308", "-1.7976931348623157e308", "9223372036854775808", "-9223372036854775809", "-0", "0.5"] {
            for field in [
                #""navigationInfo":{"enableForcedRedirect":\#(number)}"#, #""iosInfo":{"iosAppStoreId":\#(number)}"#,
                #""androidInfo":{"androidMinPackageVersionCode":\#(number)}"#,
            ] {
                let body = #"{"dynamicLinkInfo":{"domainUriPrefix":"https://shop.page.link","link":"https://shop.example/","\#(field)}}"#
                let answer = try app.request("POST", "/v1/shortLinks?key=\(key)", json: body, adminKey: nil)
                #expect(answer.status < 500, "\(number) in \(field): \(answer.status) \(answer.bodyText)")
            }
        }
        // The domain prefix need not be a claimed one for the request to be read: still no trap.
        let foreign =
            #"{"dynamicLinkInfo":{"domainUriPrefix":"https://x.example","link":"https://x.example/","navigationInfo":{"enableForcedRedirect":1e19}}}"#
        #expect(try app.request("POST", "/v1/shortLinks?key=\(key)", json: foreign, adminKey: nil).status < 500)
        #expect(try app.request("GET", "/health", adminKey: nil).status == 200)
    }

    @Test func anExportWithANegativeOrHugeCreationTimestampIsRefusedByRow() throws {
        let app = try TestApp()
        let (project, _) = try Self.projectWithKey(app)
        #expect(try app.request("POST", "/admin/v1/projects/\(project)/domains", json: #"{"domain":"shop.page.link"}"#).status == 201)
        let header = "Short link,Deep link (link),Creation timestamp"
        for (index, stamp) in ["-9223372036854775808", "-1", "9223372036854775807", "99999999999999999"].enumerated() {
            let csv = "\(header)\r\nhttps://shop.page.link/code\(index),https://shop.example/p,\(stamp)\r\n"
            for query in ["&dry_run=true", ""] {
                let report = try FDLImportTests().upload(app, project, csv, query: query)
                #expect(report.status == 200, "\(stamp): \(report.status) \(report.bodyText)")
                let rows = try #require(report.json?["rows"] as? [[String: Any]])
                #expect(
                    rows.first?["outcome"] as? String == "refused" && (rows.first?["column"] as? String)?.hasPrefix("Creation timestamp") == true,
                    "\(rows)")
            }
        }
        #expect(try app.count("SELECT count(*) FROM links") == 0)
        #expect(try app.request("GET", "/health", adminKey: nil).status == 200)
    }

    @Test func timesInQueriesBeyondAnyCalendarAreRefusedNotTrapped() throws {
        let app = try TestApp()
        let (project, _) = try Self.projectWithKey(app)
        for value in ["9223372036854775807", "999999999999999", "9223372036854775807h", "106751991167d"] {
            let answer = try app.request("GET", "/admin/v1/projects/\(project)/stats?since=\(value)&until=\(value)")
            #expect((400..<500).contains(answer.status), "\(value): \(answer.status) \(answer.bodyText)")
        }
        #expect(try app.request("GET", "/health", adminKey: nil).status == 200)
    }
}
