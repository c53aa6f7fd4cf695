import App
import Attribution
import Foundation
public import HTTP
import StoreContracts

/// Projects declared in the configuration file (`"projects": [...]`), created or brought up to
/// date at start so a container can be configured by file alone. Matched by name; the declared
/// token replaces the stored one; declared API keys are added when missing (never removed).
public enum DeclaredProjects {
    public struct Problem: Error, CustomStringConvertible {
        public let key: String
        public let message: String
        public var description: String { "\(key): \(message)" }
    }

    /// - Returns: one line per project saying what was done.
    public static func reconcile(_ declarations: [JSONValue], services: Services) throws -> [String] {
        var report: [String] = []
        for (index, declaration) in declarations.enumerated() {
            let path = "projects[\(index)]"
            let declared: Declaration
            let bytes = Array(try JSONEncoder().encode(declaration))
            do {
                declared = try JSONBody.decode(Declaration.self, from: bytes)
            } catch {
                throw Problem(key: path, message: error.message.replacingOccurrences(of: "field '", with: "field '\(path)."))
            }
            let problems = [Project.validateName(declared.creation.name)].compactMap { $0 } + declared.creation.settings.validate()
            if let problem = problems.first { throw Problem(key: "\(path).\(problem.key)", message: problem.message) }
            if let token = declared.token, token.count < 16 {
                throw Problem(key: "\(path).token", message: "must be at least 16 characters")
            }
            if let short = declared.apiKeys.firstIndex(where: { $0.count < 16 }) {
                throw Problem(key: "\(path).api_keys[\(short)]", message: "must be at least 16 characters")
            }

            if var existing = try services.app.projects.find(name: declared.creation.name) {
                guard existing.testMode == declared.creation.testMode else {
                    throw Problem(
                        key: "\(path).test_mode",
                        message: "is fixed when a project is created; '\(existing.name)' was created with test_mode \(existing.testMode)")
                }
                existing.settings = declared.creation.settings
                _ = try services.app.projects.update(existing)
                if let token = declared.token { try services.app.projects.setToken(projectID: existing.id, token: token) }
                for key in declared.apiKeys where try !services.app.projects.hasAPIKey(projectID: existing.id, key: key) {
                    _ = try services.app.projects.issueAPIKey(projectID: existing.id, key: key)
                }
                report.append("updated project '\(existing.name)' (\(existing.id))")
            } else {
                let created = try services.app.projects.create(
                    name: declared.creation.name, settings: declared.creation.settings,
                    testMode: declared.creation.testMode, token: declared.token,
                    apiKey: declared.apiKeys.first)
                for key in declared.apiKeys.dropFirst() { _ = try services.app.projects.issueAPIKey(projectID: created.project.id, key: key) }
                report.append("created project '\(created.project.name)' (\(created.project.id))")
            }
        }
        return report
    }

    struct Declaration: Decodable {
        var creation: ProjectCreation
        var token: String?
        var apiKeys: [String]

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: AnyCodingKey.self)
            token = try c.decodeIfPresent(String.self, forKey: AnyCodingKey(stringValue: "token"))
            apiKeys = try c.decodeIfPresent([String].self, forKey: AnyCodingKey(stringValue: "api_keys")) ?? []
            creation = try ProjectCreation(from: decoder, extraKeys: ["token", "api_keys"])
        }
    }
}
