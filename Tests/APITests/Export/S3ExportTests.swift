import Attribution
import CurlTransport
import Foundation
@_spi(StoreInternals) import Store
import StoreContracts
import TestSupport
import Testing

@testable import API
@testable import App

/// The raw export into an S3-compatible bucket on loopback (moto, every request's Signature V4
/// checked), on either backend: the files read back with Python's csv and json and with DuckDB
/// hold the tables' rows; an exporter killed with SIGKILL in the middle of a multipart upload
/// resumes, aborts the upload it left, and no row is missing or doubled.
@Suite(.serialized) struct S3ExportTests {
    func exportBody(_ server: S3Fixture, endpoint: String? = nil, extra: String = "") -> String {
        let endpoint = endpoint ?? server.endpoint
        return #"""
            {"destination":"s3://\#(server.info["bucket"]!)/attributiond","endpoint":"\#(endpoint)","region":"us-east-1",
             "access_key_id":"\#(server.info["access_key_id"]!)","secret_access_key":"\#(server.info["secret_access_key"]!)"\#(extra)}
            """#
    }

    /// The project's clock moved to a minute past the start of the next hour; that hour.
    func nextHour(_ app: TestApp, _ projectID: String) throws -> ExportHour {
        let now = try app.advanceClock(projectID, seconds: 0)
        let next = ExportHour(containing: now.milliseconds).next
        try app.advanceClock(projectID, seconds: Double(next.start - now.milliseconds) / 1000 + 60)
        return next
    }

    @Test func hoursExportToABucketAndReadBackAsTheTablesRows() throws {
        let server = try S3Fixture(["serve"])
        let app = try TestApp(trustedProxies: ["127.0.0.1"], allowPrivateOutbound: true)
        let transport = CurlTransport(totalTimeout: 60, policy: app.services.app.outboundPolicy)
        defer { transport.shutdown() }
        app.services.app.exports.use(transport)
        let (projectID, key, _) = try app.projectWithLink(testMode: true)
        let saved = try app.request("PUT", "/admin/v1/projects/\(projectID)/export", json: exportBody(server))
        #expect(saved.status == 200, "\(saved.bodyText)")

        // A seeded day: 24 hours, each with its own number of taps, installs and a purchase, an
        // erasure in the third.
        let first = try nextHour(app, projectID)
        var installs: [String] = []
        for hour in 0..<24 {
            for index in 0...(hour % 3) {
                let ip = "198.51.\(100 + hour).\(index + 1)"
                _ = try app.clickWithBeacon(ip: ip)
                installs.append(try #require(try app.install(ip: ip, key: key).json?["installId"] as? String))
            }
            let event = #"{"installId":"\#(installs.last!)","eventName":"purchase","eventData":{"revenue":1.5,"currency":"USD"}}"#
            #expect(try app.request("POST", "/api/sdk/v1/event", json: event, adminKey: key).status == 200)
            if hour == 2 { #expect(try app.request("DELETE", "/admin/v1/projects/\(projectID)/installs/\(installs[0])").status == 204) }
            try app.settle()
            try app.advanceClock(projectID, seconds: 3600)
        }
        // The set-up hour and the day's 24: a pass writes 24 at most, the next the rest.
        let written = app.services.app.exports.runDue() + app.services.app.exports.runDue()
        #expect(written.count == 25, "\(written.map(\.hour.text))")

        let found = try S3Fixture.read(server, prefix: "attributiond/")
        #expect((found["problems"] as? [String])?.isEmpty == true, "\(found["problems"] ?? "")")
        #expect(found["multipart_uploads"] as? Int == 0)
        let hours = try #require(found["hours"] as? [String: [String: Any]])
        var hour = first
        for _ in 0..<24 {
            let tables = try #require(hours[hour.text]?["tables"] as? [String: [String: Any]], "\(hour.text)")
            for table in ExportTable.allCases {
                let entry = try #require(tables[table.rawValue], "\(table) of \(hour.text)")
                let counted = try app.store.exports.count(of: table, projectID: projectID, from: hour.start, to: hour.end)
                for reading in ["csv_rows", "ndjson_rows", "duckdb_csv_rows", "duckdb_json_rows", "manifest_rows"] {
                    #expect(entry[reading] as? Int == counted, "\(table) \(hour.text) \(reading): \(entry[reading] ?? "none") of \(counted)")
                }
            }
            let clickIDs = try app.query(
                "SELECT click_id FROM clicks WHERE project_id = '\(projectID)' AND created_at >= \(hour.start) AND created_at < \(hour.end)"
            ) { $0.string(0) }
            #expect(tables["clicks"]?["ids"] as? [String] == clickIDs.sorted())
            #expect(clickIDs.count == Int(hour.start - first.start) / 3_600_000 % 3 + 1)
            hour = hour.next
        }
        // The erasure is a row of the third hour; the first hour was not re-read (older than the recount).
        let third = try #require(hours[first.next.next.text]?["tables"] as? [String: [String: Any]])
        #expect(third["erasures"]?["ids"] as? [String] != nil && third["erasures"]?["csv_rows"] as? Int == 1)

        // A wrong secret: the bucket refuses the signature, the hour stays to do, the error names it.
        let wrong = try app.request(
            "PUT", "/admin/v1/projects/\(projectID)/export",
            json: exportBody(server).replacingOccurrences(of: server.info["secret_access_key"]!, with: "not-the-secret"))
        #expect(wrong.status == 200)
        try app.advanceClock(projectID, seconds: 3600)
        let refused = try app.request("POST", "/admin/v1/projects/\(projectID)/export/run", json: #"{"hour":"\#(hour.text.prefix(13))"}"#)
        #expect(refused.status >= 500 || refused.status == 502 || refused.bodyText.contains("SignatureDoesNotMatch"), "\(refused.bodyText)")
    }

    @Test func anExporterKilledMidUploadResumesWithoutADoubledOrMissingRow() throws {
        let server = try S3Fixture(["serve"])
        let app = try TestApp(allowPrivateOutbound: true)
        let (projectID, _, _) = try app.projectWithLink(testMode: true)
        let hour = try nextHour(app, projectID)
        // 60,000 clicks whose user agents are random hex: files of more than one 5 MiB part.
        for batch in 0..<120 {
            let rows = (0..<500).map { index in
                let agent = (0..<16).map { _ in String(UInt64.random(in: .min ... .max), radix: 16) }.joined()
                return "('k\(batch)-\(index)', '\(projectID)', \(hour.start + Int64(batch * 500 + index) * 50), '\(agent)')"
            }
            _ = try app.run("INSERT INTO clicks (click_id, project_id, created_at, user_agent) VALUES " + rows.joined(separator: ", "))
        }
        try app.advanceClock(projectID, seconds: 3600)

        try FileManager.default.createDirectory(at: app.folder, withIntermediateDirectories: true)
        let stall = app.folder.appendingPathComponent("stall").path
        #expect(FileManager.default.createFile(atPath: stall, contents: nil))
        let proxy = try S3Fixture(["proxy", server.endpoint, stall])
        let body = exportBody(server, endpoint: proxy.endpoint, extra: #","tables":["clicks"]"#)
        #expect(try app.request("PUT", "/admin/v1/projects/\(projectID)/export", json: body).status == 200)

        let arguments = ["export", "run", "--project", projectID, "--hour", String(hour.text.prefix(13))] + app.databaseArguments
        let environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("ATTRIBUTIOND_") }.merging([
            "ATTRIBUTIOND_OUTBOUND_ALLOW_PRIVATE": "true", "ATTRIBUTIOND_EXPORT_PART_SIZE_MIB": "5",
        ]) { $1 }
        let exporter = try ChildProcess(try attributiondBinary().path, arguments, environment: environment, error: true)
        let held = eventually(timeout: 60) { FileManager.default.fileExists(atPath: stall + ".held") }
        exporter.send(SIGKILL)
        _ = exporter.wait()
        #expect(held, "the exporter reached a part upload: \(String(decoding: exporter.standardError!.readDataToEndOfFile(), as: UTF8.self))")
        let left = try app.store.exports.uploads(projectID: projectID)
        #expect(left.count == 1, "the multipart upload under way is on record: \(left)")
        try FileManager.default.removeItem(atPath: stall)

        let resumed = try ChildProcess.run(try attributiondBinary().path, arguments + ["--json"], environment: environment)
        #expect(resumed.status == 0, "\(String(decoding: resumed.stderr, as: UTF8.self))")
        #expect(try app.store.exports.uploads(projectID: projectID).isEmpty)
        let found = try S3Fixture.read(server, prefix: "attributiond/")
        #expect((found["problems"] as? [String])?.isEmpty == true, "\(found["problems"] ?? "")")
        #expect(found["multipart_uploads"] as? Int == 0, "the upload the killed run left was aborted")
        let clicks = try #require((found["hours"] as? [String: [String: Any]])?[hour.text]?["tables"] as? [String: [String: Any]])["clicks"]
        let ids = try #require(clicks?["ids"] as? [String])
        #expect(ids.count == 60_000 && Set(ids).count == 60_000, "\(ids.count) rows, \(Set(ids).count) distinct")
        #expect(clicks?["duckdb_csv_rows"] as? Int == 60_000 && clicks?["duckdb_json_rows"] as? Int == 60_000)
    }
}
