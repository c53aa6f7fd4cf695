public import Attribution
import Cryptography
public import StoreContracts

/// The install use case: the attribution transaction (the domain's cascade run on the
/// transaction's clicks, the winner claimed) and what later calls read of an install.
public struct InstallService: Sendable {
    let store: any StoreBackend
    let skanSchemas: SKANSchemaCache
    let clocks: ProjectClocks
    let outbound: OutboundMessages
    let relayTaps: RecentRelayTaps

    /// Records the install (once per install instance) and attributes it.
    /// - Parameters:
    ///   - policy: the project's matching policy unless the wire format adjusts it.
    ///   - conversionValues: answer with the install's SKAN values (the project's schema).
    ///   - delivery: where `completion` runs (the request's event loop).
    /// A new install's `install` postbacks are written in its transaction, and its
    /// `install.created` webhooks too, or, where the stored installs are the outbox's log, made
    /// from its row by the outbox worker (`OutboxLogJobs`).
    public func report(
        _ report: InstallReport, project: Project, policy: MatchingPolicy? = nil, conversionValues: Bool,
        delivery: WriteDelivery?, completion: @escaping @Sendable (Result<InstallOutcome, any Error>) -> Void
    ) throws {
        // Where the stored installs are the outbox's log, their ad-platform jobs are made from it.
        var conversion: (@Sendable (InstallOutcome) -> AdConversion?)? = nil
        if !store.outbox.factsAreALog {
            conversion = { outcome in
                AdConversion(kind: .install, name: "install", factID: outcome.install.id, occurredAt: outcome.install.createdAt.milliseconds)
            }
        }
        // A client's test mode sends nothing out (docs/outbound.md, "Test traffic").
        let created: Notifier<InstallOutcome>? =
            report.isTest
            ? nil
            : try outbound.notifier(
                .installCreated, trigger: "install", projectID: project.id, at: report.signals.time,
                webhooks: !store.outbox.factsAreALog, prepare: {},
                appendData: { outcome, install, _, body in
                    // Only an attributed install has a click whose network id is worth a read.
                    let network = outcome.install.match.attributed ? (try? install.facts())??.click?.networkClickID : nil
                    WebhookEvents.appendInstall(outcome, project: project, networkClickID: network, to: &body)
                },
                conversion: conversion)
        let notify = report.isTest ? nil : try withRejections(created, project: project, at: report.signals.time)
        let policy = policy ?? MatchingPolicy(project: project.settings)
        var report = report
        if let key = report.signals.relayRegionKey, !store.sharedWithOtherNodes,
            !relayTaps.mayHaveTaps(projectID: project.id, regionKey: key, before: report.signals.time, windowSeconds: policy.relayWindowSeconds)
        {
            // No relay tap of the region came within the window: nothing to read.
            report.signals.relayRegionKey = nil
        }
        store.installs.report(
            report, policy: policy,
            installID: TimeOrderedID.secure(at: report.signals.time),
            skan: conversionValues ? try outbound.skanContext(skanSchemas, project: project, at: report.signals.time) : nil,
            notify: notify, delivery: delivery, completion: completion)
    }

    /// `notify`, and for an install whose winning click a fraud rule refused, its
    /// `install.rejected` webhooks (written in the install's transaction on either backend:
    /// rejections are few, and the outbox's install log makes only `install.created`).
    func withRejections(_ notify: Notifier<InstallOutcome>?, project: Project, at time: Timestamp) throws -> Notifier<InstallOutcome>? {
        guard
            let rejected = try outbound.notifier(
                .installRejected, trigger: nil, projectID: project.id, at: time,
                data: { (outcome: InstallOutcome, _) in WebhookEvents.rejection(outcome, project: project) })
        else { return notify }
        return { outcome, install in
            let messages = notify?(outcome, install) ?? []
            return outcome.install.match.rejectedReasons.isEmpty ? messages : messages + rejected(outcome, install)
        }
    }

    /// The install, or `AppError.notFound`.
    public func existing(id: String, project: Project) throws -> StoredInstall {
        guard let install = try store.installs.find(id: id, projectID: project.id) else {
            throw AppError.notFound("project \(project.id) has no install \(id)")
        }
        return install
    }

    /// The install `init` registered under this install instance id, or `AppError.notFound`
    /// (the API adds what its clients should do about it).
    public func registered(instanceID: String, project: Project) throws -> StoredInstall {
        guard let install = try store.users.install(projectID: project.id, instanceID: instanceID) else {
            throw AppError.notFound("unknown install_instance_id '\(instanceID)'")
        }
        return install
    }

    /// Every install's attribution with its true click (the simulator's accuracy report).
    public func attributionRecords(projectID: String) throws -> [InstallAttributionRecord] {
        try store.installs.attributionRecords(projectID: projectID)
    }
}
