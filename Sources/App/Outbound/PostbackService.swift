import Attribution
import Cryptography
import Foundation
public import StoreContracts

/// Postback templates: validated when saved (a macro that does not exist is refused, so a typo
/// cannot send an empty parameter to a network for months).
public struct PostbackService: Sendable {
    let store: any StoreBackend
    let clock: any Clock
    let policy: OutboundAddressPolicy

    /// What a client may set; nil leaves a field as it is (`body: .some(nil)` removes the body).
    public struct Fields: Sendable {
        public var network: String?
        public var trigger: String?
        public var method: String?
        public var url: String?
        public var body: String??
        public var enabled: Bool?

        public init(
            network: String? = nil, trigger: String? = nil, method: String? = nil, url: String? = nil, body: String?? = nil,
            enabled: Bool? = nil
        ) {
            self.network = network
            self.trigger = trigger
            self.method = method
            self.url = url
            self.body = body
            self.enabled = enabled
        }
    }

    public func create(projectID: String, _ fields: Fields) throws -> PostbackTemplate {
        var missing: [ValidationProblem] = []
        for (key, value) in [("network", fields.network), ("trigger", fields.trigger), ("url", fields.url)] where value == nil {
            missing.append(ValidationProblem(key, "is required"))
        }
        try AppError.throwIfAny(missing)
        let now = clock.now()
        let template = PostbackTemplate(
            id: "pb_" + TimeOrderedID.secure(at: now).replacingOccurrences(of: "-", with: ""),
            projectID: projectID, network: fields.network!, trigger: fields.trigger!,
            method: (fields.method ?? "GET").uppercased(), url: fields.url!, body: fields.body ?? nil,
            enabled: fields.enabled ?? true, createdAt: now, updatedAt: now)
        try validate(template)
        try store.postbacks.create(template)
        return template
    }

    public func list(projectID: String) throws -> [PostbackTemplate] { try store.postbacks.templates(projectID: projectID) }

    public func existing(id: String, projectID: String) throws -> PostbackTemplate {
        guard let template = try store.postbacks.template(id: id, projectID: projectID) else {
            throw AppError.notFound("project \(projectID) has no postback template \(id)")
        }
        return template
    }

    public func update(id: String, projectID: String, _ fields: Fields) throws -> PostbackTemplate {
        var template = try existing(id: id, projectID: projectID)
        if let network = fields.network { template.network = network }
        if let trigger = fields.trigger { template.trigger = trigger }
        if let method = fields.method { template.method = method.uppercased() }
        if let url = fields.url { template.url = url }
        if let body = fields.body { template.body = body }
        if let enabled = fields.enabled { template.enabled = enabled }
        template.updatedAt = clock.now()
        try validate(template)
        guard try store.postbacks.update(template) else { throw AppError.notFound("project \(projectID) has no postback template \(id)") }
        return template
    }

    public func delete(id: String, projectID: String) throws {
        guard try store.postbacks.delete(id: id, projectID: projectID) else {
            throw AppError.notFound("project \(projectID) has no postback template \(id)")
        }
    }

    private func validate(_ template: PostbackTemplate) throws {
        var problems: [ValidationProblem] = []
        if !(1...64).contains(template.network.count) || template.network.contains(where: { $0.isWhitespace || $0.isNewline }) {
            problems.append(ValidationProblem("network", "must be 1 to 64 characters without spaces (the utm_source of the network's links)"))
        }
        if !(1...256).contains(template.trigger.count) {
            problems.append(ValidationProblem("trigger", "must be 'install', 'payment' or an event name (1 to 256 characters)"))
        }
        if !["GET", "POST"].contains(template.method) { problems.append(ValidationProblem("method", "must be GET or POST")) }
        if template.method == "GET", template.body != nil { problems.append(ValidationProblem("body", "a GET postback has no body")) }
        if template.url.count > 4096 { problems.append(ValidationProblem("url", "must be at most 4096 characters")) }
        for (key, text) in [("url", template.url), ("body", template.body ?? "")] {
            if let unknown = PostbackMacros.used(in: text).first(where: { !PostbackMacros.names.contains($0) }) {
                problems.append(
                    ValidationProblem(
                        key, "unknown macro {\(unknown)}; known: \(PostbackMacros.names.sorted().map { "{\($0)}" }.joined(separator: ", "))"))
            }
        }
        if (template.body ?? "").utf8.count > 16_384 { problems.append(ValidationProblem("body", "must be at most 16 KB")) }
        // The address is judged with every macro empty: macros may fill the query, not the host.
        let sample = PostbackMacros.render(template.url, values: [:], encoding: .url)
        if !problems.contains(where: { $0.key == "url" }), let refusal = policy.refusal(for: sample) {
            problems.append(ValidationProblem("url", refusal))
        }
        if let schemeEnd = template.url.range(of: "://") {
            let authority = template.url[schemeEnd.upperBound...].prefix { !"/?#".contains($0) }
            if authority.contains("{") { problems.append(ValidationProblem("url", "macros may not be part of the host")) }
        }
        try AppError.throwIfAny(problems)
    }
}
