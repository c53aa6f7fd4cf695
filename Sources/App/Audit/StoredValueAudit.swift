public import Attribution

/// Finds stored values that the current validation rules would refuse: rows written before a rule
/// was tightened (a URL with a control character, a short code that a fixed route now shadows).
/// They are reported, never changed or dropped: the operator decides what they should become.
public enum StoredValueAudit {
    public struct Finding: Sendable, Equatable, CustomStringConvertible {
        /// `project`, `template` or `link`.
        public let kind: String
        public let id: String
        public let projectID: String
        public let problem: ValidationProblem

        public var description: String { "\(kind) \(id) (project \(projectID)): \(problem)" }
    }

    public static func findings(app: AppServices) throws -> [Finding] {
        var findings: [Finding] = []
        for project in try app.projects.list() {
            findings += project.settings.validate().map { Finding(kind: "project", id: project.id, projectID: project.id, problem: $0) }
            for template in try app.links.templates(projectID: project.id) {
                findings += template.validate().map { Finding(kind: "template", id: template.id, projectID: project.id, problem: $0) }
            }
        }
        try app.links.forEach { link in
            findings += link.validate().map { Finding(kind: "link", id: link.id, projectID: link.projectID, problem: $0) }
        }
        return findings
    }
}
