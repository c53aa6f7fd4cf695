import Attribution
import Foundation
import Store
import StoreContracts
import Testing

@testable import App

/// The application layer over the real SQLite store: validation, the caches following commits,
/// the click path's link lookup.
@Suite struct AppServicesTests {
    final class Fixture: Sendable {
        let folder: URL
        let app: AppServices

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-app-\(UUID().uuidString)")
            let database = try Database(path: folder.appendingPathComponent("db.sqlite").path)
            app = AppServices(store: SQLiteStore(database: database))
        }

        deinit { try? FileManager.default.removeItem(at: folder) }
    }

    @Test func projectCreationNamesEveryBadField() throws {
        let fixture = try Fixture()
        var settings = ProjectSettings()
        settings.minConfidence = 7
        #expect(throws: AppError.self) { try fixture.app.projects.create(name: "", settings: settings) }
        do {
            _ = try fixture.app.projects.create(name: "", settings: settings)
        } catch let error as AppError {
            guard case .invalid(let problems) = error else {
                Issue.record("expected .invalid, got \(error)")
                return
            }
            #expect(Set(problems.map(\.key)) == ["name", "min_confidence"])
        }
        #expect(try fixture.app.projects.list().isEmpty)
    }

    @Test func aTokenChangeEmptiesTheProjectCache() throws {
        let fixture = try Fixture()
        let created = try fixture.app.projects.create(name: "Shop", settings: ProjectSettings())
        let oldToken = created.token
        #expect(try fixture.app.projects.project(forToken: oldToken)?.id == created.project.id)  // cached now
        try fixture.app.projects.setToken(projectID: created.project.id, token: "new-token-0123456789")
        #expect(try fixture.app.projects.project(forToken: oldToken) == nil)
        #expect(try fixture.app.projects.project(forToken: "new-token-0123456789")?.id == created.project.id)
    }

    @Test func theClickPathSeesALinkChangeAtOnce() throws {
        let fixture = try Fixture()
        let project = try fixture.app.projects.create(name: "Shop", settings: ProjectSettings()).project
        let link = Link(
            id: UUID().uuidString.lowercased(), projectID: project.id, shortCode: "spring", originalURL: "https://example.com/a",
            createdAt: fixture.app.now(for: project))
        let created = try fixture.app.links.create(link, codeIsCustom: true)
        #expect(try fixture.app.links.resolve(code: "spring", slug: nil)?.target.link.originalURL == "https://example.com/a")
        var changed = created
        changed.shortCode = "summer"
        changed.originalURL = "https://example.com/b"
        _ = try fixture.app.links.update(changed, previousCode: "spring")
        #expect(try fixture.app.links.resolve(code: "spring", slug: nil) == nil)
        #expect(try fixture.app.links.resolve(code: "summer", slug: nil)?.target.link.originalURL == "https://example.com/b")
        try fixture.app.links.delete(id: created.id, projectID: project.id)
        #expect(try fixture.app.links.resolve(code: "summer", slug: nil) == nil)
    }

    @Test func aLinkWithABadURLIsRefusedByNameAndNotStored() throws {
        let fixture = try Fixture()
        let project = try fixture.app.projects.create(name: "Shop", settings: ProjectSettings()).project
        let link = Link(
            id: UUID().uuidString.lowercased(), projectID: project.id, shortCode: "", originalURL: "https://ex ample.com",
            createdAt: fixture.app.now(for: project))
        #expect(throws: AppError.self) { try fixture.app.links.create(link, codeIsCustom: false, fieldNames: ["original_url": "originalUrl"]) }
        do { _ = try fixture.app.links.create(link, codeIsCustom: false, fieldNames: ["original_url": "originalUrl"]) } catch let error as AppError {
            #expect(error.message.hasPrefix("originalUrl:"))
        }
        #expect(try fixture.app.links.list(projectID: project.id, limit: 10).isEmpty)
    }

    @Test func blockingReadsAskTheGateFirst() throws {
        struct OnLoop: Error {}
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-app-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = SQLiteStore(database: try Database(path: folder.appendingPathComponent("db.sqlite").path))
        let app = AppServices(store: store, beforeBlocking: { throw OnLoop() })
        #expect(throws: OnLoop.self) { try app.projects.project(forToken: "some-token-0123456789") }
        #expect(throws: OnLoop.self) { try app.links.resolve(code: "spring", slug: nil) }
    }
}
