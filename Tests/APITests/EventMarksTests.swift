import Attribution
import Foundation
@_spi(StoreInternals) import Store
import StoreContracts
import TestSupport
import Testing

/// The marks counting reads of an install's other events (`EventMarks`, migration 0045): the
/// earliest time of each name, moved by a backdated event, and the active cohort days with an
/// event; `rollups rebuild` writes them again after a hand edit. On either backend.
@Suite struct EventMarksTests {
    @Test func theMarksFollowTheEventsAndARebuildRestoresThem() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, key, _) = try app.projectWithLink(testMode: true)
        _ = try app.clickWithBeacon(ip: "198.51.100.61")
        let installID = try #require(try app.install(ip: "198.51.100.61", key: key).json?["installId"] as? String)
        let installedAt = try #require(try app.queryOne("SELECT created_at FROM installs WHERE id = ?", installID) { $0.int(0) })
        func event(_ name: String, at time: Timestamp? = nil) throws {
            var body = #"{"installId":"\#(installID)","eventName":"\#(name)""#
            if let time { body += #","timestamp":"\#(time.iso8601)""# }
            let response = try app.request("POST", "/api/sdk/v1/event", json: body + "}", adminKey: key)
            #expect(response.status == 200, "\(response.bodyText)")
        }
        func names() throws -> [String] {
            try app.query("SELECT name, first_at FROM install_event_names WHERE install_id = ? ORDER BY name", [installID]) {
                "\($0.string(0))@\($0.int(1) - installedAt)"
            }
        }
        func days() throws -> [Int64] {
            try app.query("SELECT day FROM install_active_days WHERE install_id = ? ORDER BY day", [installID]) { $0.int(0) }
        }
        func latest(_ name: String) throws -> Int64 {
            try #require(try app.queryOne("SELECT max(charted_at) FROM events WHERE install_id = ? AND name = ?", installID, name) { $0.int(0) })
        }
        try event("open")
        let opened = try #require(try app.queryOne("SELECT min(charted_at) FROM events WHERE install_id = ?", installID) { $0.int(0) })
        #expect(try names() == ["open@\(opened - installedAt)"] && days().isEmpty, "day 0 is no active cohort day")

        _ = try app.advanceClock(projectID, seconds: 26 * 3600)
        try event("open")
        try event("purchase")
        #expect(try names() == ["open@\(opened - installedAt)", "purchase@\(try latest("purchase") - installedAt)"])
        #expect(try days() == [1], "day 1 has an event, noted once")
        // A late report of an earlier purchase moves the name's first time back.
        let backdated = (installedAt / 1000 + 3600) * 1000  // whole seconds, as the timestamp's text has them
        try event("purchase", at: Timestamp(milliseconds: backdated))
        let moved = try names()
        #expect(moved == ["open@\(opened - installedAt)", "purchase@\(backdated - installedAt)"], "\(moved)")

        // Hand edits lose the marks; the rebuild writes them from the events again.
        try app.run("DELETE FROM install_event_names WHERE install_id = ?", installID)
        try app.run("DELETE FROM install_active_days WHERE install_id = ?", installID)
        try app.store.rollups.rebuild(projectID: projectID, sinceHour: Int64.min / 2)
        #expect(try names() == ["open@\(opened - installedAt)", "purchase@\(backdated - installedAt)"])
        #expect(try days() == [1])
        #expect(try app.store.rollups.check(projectID: projectID, sinceHour: Int64.min / 2, limit: 10).differing == 0)

        // Deleted with their install.
        #expect(try app.request("DELETE", "/admin/v1/projects/\(projectID)/installs/\(installID)").status < 300)
        #expect(try names().isEmpty && days().isEmpty)
    }
}
