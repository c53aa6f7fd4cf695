import Attribution
import Cryptography
import Foundation
import Gzip
@_spi(StoreInternals) import Store
import StoreContracts
import TestSupport
import Testing

@testable import API
@testable import App

/// The raw export into a directory, through the admin API and the job's pass (docs/export.md): a
/// test-mode project's hours close as its clock moves; each hour's files hold exactly the tables'
/// rows of that hour, in both formats, with a manifest that names their counts and digests; an
/// erasure is a row of the hour it happened in and takes the install out of the hours exported
/// again after it.
@Suite struct DirectoryExportTests {
    static let tables: [ExportTable] = [.clicks, .installs, .events, .erasures]

    func rowsInTables(_ app: TestApp, _ projectID: String, _ hour: ExportHour) throws -> [ExportTable: Int64] {
        let range = "project_id = '\(projectID)' AND %@ >= \(hour.start) AND %@ < \(hour.end)"
        func count(_ table: String, _ column: String) throws -> Int64 {
            try app.count("SELECT count(*) FROM \(table) WHERE " + range.replacingOccurrences(of: "%@", with: column))
        }
        return [
            .clicks: try count("clicks", "created_at"), .installs: try count("installs", "created_at"),
            .events: try count("events", "received_at"), .erasures: try count("erasures", "erased_at"),
        ]
    }

    @Test func closedHoursExportTheTablesRowsInBothFormatsAndAnErasureIsARow() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, key, _) = try app.projectWithLink(testMode: true)
        let folder = app.folder.appendingPathComponent("export").path
        let saved = try app.request(
            "PUT", "/admin/v1/projects/\(projectID)/export",
            json: #"{"destination":"file://\#(folder)","tables":["clicks","installs","events","erasures"]}"#)
        #expect(saved.status == 200, "\(saved.bodyText)")
        #expect(saved.json?["formats"] as? [String] == ["csv", "ndjson"])

        // The clock at the start of the next hour: the hour the export was set up in is its first.
        let start = try app.advanceClock(projectID, seconds: 0)
        let first = ExportHour(containing: start.milliseconds).next
        try app.advanceClock(projectID, seconds: Double(first.start - start.milliseconds) / 1000 + 60)
        var installs: [String] = []
        for index in 0..<3 {
            let ip = "198.51.100.\(10 + index)"
            _ = try app.clickWithBeacon(ip: ip)
            let installed = try app.install(ip: ip, key: key)
            installs.append(try #require(installed.json?["installId"] as? String))
        }
        // A field with a comma, a quote and a line break, as RFC 4180 quotes it.
        let event = try app.request(
            "POST", "/api/sdk/v1/event",
            json: #"{"installId":"\#(installs[0])","eventName":"said \"hi\", then\nleft","eventData":{"revenue":4.5,"currency":"EUR"}}"#,
            adminKey: key)
        #expect(event.status == 200, "\(event.bodyText)")
        try app.settle()

        // The hour the export was set up in has closed (empty); the one under way is not exported.
        let setUpHour = app.services.app.exports.runDue()
        #expect(setUpHour.map(\.hour) == [ExportHour(containing: start.milliseconds)] && setUpHour.first?.rows[.clicks] == 0)
        #expect(app.services.app.exports.runDue().isEmpty)
        try app.advanceClock(projectID, seconds: 3600)
        let firstPass = app.services.app.exports.runDue()
        #expect(firstPass.map(\.hour) == [first], "\(firstPass.map(\.hour.text))")

        let files = ExportedFiles(root: folder)
        let counted = try rowsInTables(app, projectID, first)
        #expect(counted[.clicks] == 3 && counted[.installs] == 3 && counted[.events] == 1)
        let manifest = try files.manifest(first)
        #expect(manifest["version"] as? Int == 1 && manifest["schema_version"] as? Int == 1)
        #expect(manifest["hour"] as? String == first.text)
        let manifestRows = try #require(manifest["rows"] as? [String: Int])
        for table in Self.tables {
            let csv = try files.csv(table, first)
            #expect(csv.first == table.columns.map(\.name), "\(table)")
            #expect(Int64(csv.count - 1) == counted[table], "\(table): \(csv.count - 1) rows in the CSV")
            #expect(Int64(try files.ndjson(table, first).count) == counted[table], "\(table)")
            #expect(Int64(manifestRows[table.rawValue] ?? -1) == counted[table])
        }
        // Each file's digest and size as the manifest says.
        for file in try #require(manifest["files"] as? [[String: Any]]) {
            let path = try #require(file["path"] as? String)
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: String(path.dropFirst("file://".count)))))
            #expect(file["bytes"] as? Int == bytes.count)
            #expect(file["sha256"] as? String == AESGCM.hex(Secrets.sha256(bytes)))
        }
        // The rows are the tables' rows: every click id once, times in ISO 8601 with milliseconds.
        let clicks = try files.ndjson(.clicks, first)
        let storedClickIDs = try app.query("SELECT click_id FROM clicks WHERE project_id = '\(projectID)' ORDER BY click_id") { $0.string(0) }
        #expect(clicks.compactMap { $0["click_id"] as? String }.sorted() == storedClickIDs.sorted())
        let createdAt = try #require(clicks.first?["created_at"] as? String)
        #expect(createdAt.count == 24 && createdAt.hasSuffix("Z") && Timestamp(iso8601: createdAt) != nil, "\(createdAt)")
        #expect(clicks.first?["is_bot"] as? Bool == false)
        let eventCSV = try files.csv(.events, first)
        let nameColumn = try #require(eventCSV[0].firstIndex(of: "name"))
        #expect(eventCSV[1][nameColumn] == "said \"hi\", then\nleft")
        let eventJSON = try #require(try files.ndjson(.events, first).first)
        #expect(eventJSON["revenue"] as? Double == 4.5 && eventJSON["currency"] as? String == "EUR")
        #expect((eventJSON["data"] as? [String: Any]) != nil, "the event's data is JSON, not a string: \(eventJSON)")
        // A NULL is an empty field in CSV and null in NDJSON.
        let claimedColumn = try #require(eventCSV[0].firstIndex(of: "client_event_id"))
        #expect(eventCSV[1][claimedColumn] == "" && eventJSON["client_event_id"] is NSNull)

        // An erasure in the next hour: a row there, and the first hour written again without it.
        let erased = try app.request("DELETE", "/admin/v1/projects/\(projectID)/installs/\(installs[1])")
        #expect(erased.status == 204, "\(erased.bodyText)")
        try app.advanceClock(projectID, seconds: 3600)
        let secondPass = app.services.app.exports.runDue()
        #expect(secondPass.contains { $0.hour == first.next && $0.version == 1 })
        #expect(secondPass.contains { $0.hour == first && $0.version == 2 }, "\(secondPass.map { ($0.hour.text, $0.version) })")
        let erasures = try files.ndjson(.erasures, first.next)
        #expect(erasures.count == 1 && erasures.first?["install_id"] as? String == installs[1] && erasures.first?["kind"] as? String == "install")
        let again = try files.ndjson(.installs, first).compactMap { $0["install_id"] as? String }
        #expect(Set(again) == Set([installs[0], installs[2]]))
        #expect(try files.manifest(first)["version"] as? Int == 2)

        // The admin API shows the hours; a run of an open hour is refused, naming it.
        let shown = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)/export").json)
        #expect((shown["recent_hours"] as? [[String: Any]])?.count == 3, "\(shown)")
        let open = try app.request("POST", "/admin/v1/projects/\(projectID)/export/run", json: #"{"hour":"2999-01-01T00"}"#)
        #expect(open.status == 422 && open.bodyText.contains("not closed yet"), "\(open.bodyText)")
        let rerun = try app.request("POST", "/admin/v1/projects/\(projectID)/export/run", json: #"{"hour":"\#(first.text.prefix(13))","again":true}"#)
        #expect(rerun.status == 200 && rerun.json?["version"] as? Int == 3, "\(rerun.bodyText)")
    }

    @Test func settingsAreCheckedAndTheSecretIsNeverShown() throws {
        let app = try TestApp()
        let projectID = try #require(try app.createProject()["id"] as? String)
        let path = "/admin/v1/projects/\(projectID)/export"
        #expect(try app.request("GET", path).status == 404)
        let relative = try app.request("PUT", path, json: #"{"destination":"file://relative/dir"}"#)
        #expect(relative.status == 422 && relative.bodyText.contains("destination"), "\(relative.bodyText)")
        let keyless = try app.request("PUT", path, json: #"{"destination":"s3://my-bucket/raw"}"#)
        #expect(keyless.status == 422 && keyless.bodyText.contains("access_key_id") && keyless.bodyText.contains("secret_access_key"))
        let unknown = try app.request("PUT", path, json: #"{"destination":"s3://my-bucket","tables":["clicks","nope"],"formats":["parquet"]}"#)
        #expect(unknown.status == 422 && unknown.bodyText.contains("nope") && unknown.bodyText.contains("parquet"), "\(unknown.bodyText)")
        let pathed = try app.request(
            "PUT", path,
            json: #"{"destination":"s3://my-bucket","endpoint":"https://s3.example.com/base","access_key_id":"A","secret_access_key":"B"}"#)
        #expect(pathed.status == 422 && pathed.bodyText.contains("endpoint"), "\(pathed.bodyText)")
        let stray = try app.request("PUT", path, json: #"{"destination":"s3://my-bucket","bucket":"x"}"#)
        #expect(stray.status == 400 || stray.status == 422, "\(stray.bodyText)")
        let saved = try app.request(
            "PUT", path,
            json:
                #"{"destination":"s3://my-bucket/raw","endpoint":"https://s3.example.com","access_key_id":"AKIAEXAMPLE","secret_access_key":"abcdefghijklmnop"}"#
        )
        #expect(saved.status == 200, "\(saved.bodyText)")
        #expect(saved.json?["secret_access_key"] as? String == "••••mnop" && !saved.bodyText.contains("abcdefghijklmnop"))
        // Saved again without the secret: the stored one is kept.
        let resaved = try app.request(
            "PUT", path, json: #"{"destination":"s3://my-bucket/raw","endpoint":"https://s3.example.com","access_key_id":"AKIAEXAMPLE"}"#)
        #expect(resaved.status == 200 && resaved.json?["secret_access_key"] as? String == "••••mnop", "\(resaved.bodyText)")
        #expect(try app.request("DELETE", path).status == 204)
        #expect(try app.request("DELETE", path).status == 404)
    }
}

/// docs/export.md's schema is the one the files have: each table's line names its columns in
/// file order.
@Suite struct ExportSchemaDocumentTests {
    @Test func theDocumentedColumnsAreTheExportedOnes() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/export.md"), encoding: .utf8)
        #expect(text.contains("## Schema (version \(ExportTable.schemaVersion))"))
        for table in ExportTable.allCases {
            let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("- `\(table.rawValue)` (") }, "\(table)")
            let listed = try #require(line.range(of: "): ")).upperBound
            let names = line[listed...].split(separator: ", ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "`")) }
            #expect(names == table.columns.map(\.name), "\(table)")
        }
    }
}
