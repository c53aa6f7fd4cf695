import Attribution
import Cryptography
import Foundation
import JSON
import StoreContracts

/// The outbox jobs of each kind of fact: webhooks for the endpoints that want its type, and
/// postbacks for the templates of its trigger whose network the install's click came from. When
/// a project has neither, there is no notifier at all and the fact's transaction does no extra work.
struct OutboundMessages: Sendable {
    let endpoints: ByProjectCache<WebhookEndpoint>
    let templates: ByProjectCache<PostbackTemplate>
    let connections: ByProjectCache<AdPlatformConnection>
    let adPlatforms: AdPlatformSettings

    /// The endpoints of `projectID` that want `type`.
    func subscribers(of type: WebhookEventType, projectID: String) throws -> [WebhookEndpoint] {
        try endpoints.values(projectID: projectID).filter { $0.wants(type.rawValue) }
    }

    func templates(trigger: String, projectID: String) throws -> [PostbackTemplate] {
        try templates.values(projectID: projectID).filter { $0.enabled && $0.trigger == trigger }
    }

    /// The project's enabled ad-platform connections.
    func adPlatformConnections(projectID: String) throws -> [AdPlatformConnection] {
        try connections.values(projectID: projectID).filter(\.enabled)
    }

    /// The notifier for `fact`s of one project, or nil when nothing listens.
    /// - Parameters:
    ///   - trigger: the postback trigger of the fact (`install`, `payment`, an event name); nil: none.
    ///   - data: the webhook's `data`.
    ///   - values: the postback macros only the fact knows (event name and id, revenue, currency).
    func notifier<Fact>(
        _ type: WebhookEventType, trigger: String?, projectID: String, at time: Timestamp,
        data: @escaping @Sendable (Fact, InstallFactsSource) -> [String: JSONValue],
        values: @escaping @Sendable (Fact) -> [String: String] = { _ in [:] },
        conversion: (@Sendable (Fact) -> AdConversion?)? = nil
    ) throws -> Notifier<Fact>? {
        try notifier(
            type, trigger: trigger, projectID: projectID, at: time, prepare: {}, data: { fact, install, _ in data(fact, install) },
            values: values, conversion: conversion)
    }

    /// The same, with work done once before the transaction and only when something listens
    /// (`prepare`), its result handed to `data` on the writer.
    func notifier<Fact, Prepared: Sendable>(
        _ type: WebhookEventType, trigger: String?, projectID: String, at time: Timestamp,
        prepare: () -> Prepared,
        data: @escaping @Sendable (Fact, InstallFactsSource, Prepared) -> [String: JSONValue],
        values: @escaping @Sendable (Fact) -> [String: String] = { _ in [:] },
        conversion: (@Sendable (Fact) -> AdConversion?)? = nil
    ) throws -> Notifier<Fact>? {
        try notifier(
            type, trigger: trigger, projectID: projectID, at: time, prepare: prepare,
            appendData: { fact, install, prepared, body in JSONValue.object(data(fact, install, prepared)).append(to: &body) },
            values: values, conversion: conversion)
    }

    /// The same, `data` written straight into the job's body by `appendData` (a fact whose
    /// webhook is mostly serialised before its transaction).
    /// - Parameter webhooks: false where the store makes the fact's webhooks later, from the
    ///   stored facts (`OutboxLogJobs`): then only postbacks are written with the fact.
    /// - Parameter conversion: what the fact is to the project's ad platforms (nil: nothing).
    func notifier<Fact, Prepared: Sendable>(
        _ type: WebhookEventType, trigger: String?, projectID: String, at time: Timestamp,
        webhooks: Bool = true, prepare: () -> Prepared,
        appendData: @escaping @Sendable (Fact, InstallFactsSource, Prepared, inout [UInt8]) -> Void,
        values: @escaping @Sendable (Fact) -> [String: String] = { _ in [:] },
        conversion: (@Sendable (Fact) -> AdConversion?)? = nil
    ) throws -> Notifier<Fact>? {
        let subscribers = webhooks ? try subscribers(of: type, projectID: projectID) : []
        let postbacks = try trigger.map { try templates(trigger: $0, projectID: projectID) } ?? []
        let connected = try conversion != nil && !adPlatformConnections(projectID: projectID).isEmpty
        guard !subscribers.isEmpty || !postbacks.isEmpty || connected else { return nil }
        let prepared = prepare()
        let webhooks = WebhookEvents.Prepared(type, projectID: projectID, at: time, to: subscribers)
        return { @Sendable fact, install in
            var messages = webhooks.messages(appendingData: { appendData(fact, install, prepared, &$0) })
            if connected, let conversion = conversion?(fact) {
                // One small job, made one per connected platform when it is moved; each request is
                // made when it is sent, off this transaction.
                messages.append(AdPlatformJob.everyPlatform(conversion, installID: install.installID, projectID: projectID, at: time))
            }
            if !postbacks.isEmpty, let facts = try? install.facts(), let network = facts.click?.utm.source?.lowercased() {
                let matching = postbacks.filter { $0.network.lowercased() == network }
                if !matching.isEmpty {
                    let macroValues = Self.values(facts, at: time).merging(values(fact)) { _, own in own }
                    messages += matching.map { Self.postback($0, values: macroValues, at: time) }
                }
            }
            return messages
        }
    }

    /// The project's SKAN context, with a `skan.updated` notifier when an endpoint wants it.
    func skanContext(_ schemas: SKANSchemaCache, project: Project, at time: Timestamp) throws -> SKANStore.Context? {
        guard var context = schemas.context(for: project) else { return nil }
        context.notify = try notifier(.skanUpdated, trigger: nil, projectID: project.id, at: time) { (change: SKANStore.SKANChange, _) in
            [
                "install_id": .string(change.installID), "window": .number(Double(change.window)),
                "fine_conversion_value": change.fine.map { .number(Double($0)) } ?? .null,
                "coarse_conversion_value": change.coarse.map { .string($0.rawValue) } ?? .null,
                "lock_postback": .bool(change.locked),
            ]
        }
        return context
    }

    /// The macros every fact of an install fills.
    static func values(_ facts: InstallFacts, at time: Timestamp) -> [String: String] {
        var values: [String: String] = ["install_id": facts.installID, "timestamp": String(time.milliseconds / 1000)]
        values["platform"] = facts.platform
        values["app_version"] = facts.appVersion
        values["ip"] = facts.ip
        values["user_agent"] = facts.userAgent
        values["idfv"] = facts.idfv
        // The install's (the geo database or proxy, else the SDK's locale), else its click's.
        values["country"] = facts.country ?? facts.click?.country
        if facts.platform == "ios" { values["idfa"] = facts.advertisingID }
        if facts.platform == "android" { values["gaid"] = facts.advertisingID }
        if let click = facts.click {
            values["click_id"] = click.clickID
            values["network_click_id"] = click.networkClickID?.value
            values["utm_source"] = click.utm.source
            values["utm_medium"] = click.utm.medium
            values["utm_campaign"] = click.utm.campaign
            values["utm_content"] = click.utm.content
            values["utm_term"] = click.utm.term
        }
        return values
    }

    /// A postback job: the URL with its macros filled, the method and body in the payload.
    static func postback(_ template: PostbackTemplate, values: [String: String], at time: Timestamp) -> OutboxMessage {
        let url = PostbackMacros.render(template.url, values: values, encoding: .url)
        var payload: [String: JSONValue] = ["method": .string(template.method)]
        if let body = template.body {
            let json = PostbackMacros.isJSONBody(body)
            payload["body"] = .string(PostbackMacros.render(body, values: values, encoding: json ? .json : .url))
            payload["content_type"] = .string(json ? "application/json" : "application/x-www-form-urlencoded")
        }
        let id = TimeOrderedID.secure(at: time)
        return OutboxMessage(
            id: id, projectID: template.projectID, kind: "postback", targetID: template.id, targetURL: url,
            eventID: "pb_" + String(id.filter { $0 != "-" }), eventType: template.trigger,
            payload: String(decoding: JSONValue.object(payload).serialized(), as: UTF8.self), createdAt: time)
    }
}
