import App
import Attribution
import Cryptography
import Foundation
import HTTP
import StoreContracts

/// Linkrunner's client API, `POST /api/client/*` (linkrunner-api.md): the project token in the
/// body, the `{status, msg, data}` envelope on every answer.
enum LinkrunnerRoutes {
    /// A request with its project resolved from the body's token.
    struct Call: Sendable {
        let request: HTTPRequest
        let body: JSONFields
        let project: Project
        let services: Services

        var instanceID: String {
            get throws { try body.requiredString("install_instance_id", maxLength: 256) }
        }

        /// The install `init` registered; a 404 saying to call init first otherwise.
        func install() throws -> StoredInstall {
            do {
                return try services.app.installs.registered(instanceID: try instanceID, project: project)
            } catch AppError.notFound(let message) {
                throw HTTPError.notFound("\(message): call /api/client/init first")
            }
        }

        /// "Now" as this project sees it (its test clock in test mode).
        var now: Timestamp { services.now(for: project) }

        func deviceData() throws -> DeviceData {
            // `device_data` at the top level, or inside `data` (trigger, capture-payment).
            let nested = try body.object("data")?.object("device_data", path: "data.device_data")
            return try DeviceData(body.object("device_data") ?? nested)
        }
    }

    typealias Handler = @Sendable (Call, @escaping @Sendable (Result<[String: JSONValue], any Error>) -> Void) -> Void

    /// `POST /api/client/init`
    static func initialize(_ services: Services) -> RouteHandler {
        endpoint(services) { call, done in
            do {
                let device = try call.deviceData()
                let client = services.clientIP.clientAddress(of: call.request)
                let network = services.addressLists.network(of: client)
                let now = call.now
                var report = InstallReport(
                    projectID: call.project.id, reporter: "linkrunner",
                    identity: InstallIdentity(installInstanceID: try call.instanceID, idfv: device.idfv),
                    signals: device.signals(time: now, ipKey: network.ipKey, declaredPlatform: try call.body.string("platform")),
                    deviceModel: device.model, appVersion: try call.body.string("app_version", maxLength: 64) ?? device.appVersion,
                    ip: client?.ipString, userAgent: device.userAgent,
                    country: services.countries.country(of: call.request, resolver: services.clientIP) ?? device.country,
                    isTest: try call.body.bool("debug") ?? false,  // the SDK's debug build: test traffic
                    consent: try ConsentFields.consent(call.body, path: "").map { device.consent?.updated(with: $0) ?? $0 } ?? device.consent,
                    adSignals: try ConsentFields.signals([call.body], referrer: nil).map { device.adSignals?.updated(with: $0) ?? $0 }
                        ?? device.adSignals)
                report.classify(network, lists: services.addressLists, playReferrer: try device.playReferrer ?? PlayReferrerFields.times([call.body]))
                try services.app.installs.report(
                    report, project: call.project, conversionValues: true,
                    delivery: call.request.writeDelivery
                ) { result in
                    guard case .success(let outcome) = result else { return done(result.map { _ in [:] }) }
                    // The token's exchange is queued before the answer, so it is durable by then;
                    // a token that cannot be kept never fails the init.
                    services.app.appleAds.capture(
                        device.appleAdsToken, installID: outcome.install.id, project: call.project, at: now,
                        delivery: call.request.writeDelivery
                    ) { _ in
                        done(
                            Result {
                                if outcome.isNew { services.metrics.recordInstall(matchType: outcome.install.match.matchType.rawValue) }
                                var data = try CampaignData.attribution(
                                    of: outcome.install, target: CampaignData.target(of: outcome, project: call.project),
                                    appleAds: outcome.appleAds.map { ($0, outcome.appleAdsNames) },
                                    project: call.project, services: services,
                                    base: LinkURLs.base(for: call.request, services: services), includeMatch: false)
                                data["install_id"] = .string(outcome.install.id)
                                SKANFields.add(outcome.skan, to: &data)
                                return data
                            })
                    }
                }
            } catch {
                done(.failure(error))
            }
        }
    }

    /// `POST /api/client/attribution-data`
    static func attributionData(_ services: Services) -> RouteHandler {
        sync(services) { call in
            let install = try call.install()
            try captureAppleAdsToken(call, install: install)
            var data = try CampaignData.attribution(
                of: install, appleAds: CampaignData.appleAds(of: install, services: services),
                project: call.project, services: services,
                base: LinkURLs.base(for: call.request, services: services), includeMatch: true)
            // While Apple has not answered yet (its 404 "not yet", and the retries), no campaign:
            // the clients poll until campaign_data is there, and stopped at "organic" before.
            if install.match.matchType != .deterministic, try services.app.appleAds.claim(installID: install.id)?.status == .pending {
                data["campaign_data"] = nil
            }
            return data
        }
    }

    /// `POST /api/client/trigger`
    static func trigger(_ services: Services) -> RouteHandler {
        sync(services) { call in
            let install = try call.install()
            try captureAppleAdsToken(call, install: install)
            var data: [String: JSONValue] = [:]
            if let user = try userData(call.body) {
                // A trigger (signup/login) counts as the event `signup`.
                SKANFields.add(try services.app.activity.saveUser(user, install: install, project: call.project, signupEvent: true), to: &data)
            } else {
                SKANFields.add(try services.app.activity.conversionValues(installID: install.id, project: call.project), to: &data)
            }
            return data
        }
    }

    /// Keeps a token a later call carried (the exchange is queued unless Apple already answered);
    /// waits for it on the handler pool, so the answer follows a durable job. Never fails the call.
    static func captureAppleAdsToken(_ call: Call, install: StoredInstall) throws {
        let device = try call.deviceData()
        guard device.appleAdsToken != nil else { return }
        let stored = DispatchSemaphore(value: 0)
        call.services.app.appleAds.capture(
            device.appleAdsToken, installID: install.id, project: call.project, at: call.now,
            delivery: nil
        ) { _ in stored.signal() }
        stored.wait()
    }

    /// `POST /api/client/set-user-data`
    static func setUserData(_ services: Services) -> RouteHandler {
        sync(services) { call in
            let install = try call.install()
            guard let user = try userData(call.body) else { throw HTTPError.badRequest("missing required field 'user_data'", code: "missing_field") }
            try services.app.activity.saveUser(user, install: install, project: call.project)
            return [:]
        }
    }

    /// `POST /api/client/capture-event`
    static func captureEvent(_ services: Services) -> RouteHandler {
        endpoint(services) { call, done in
            do {
                let name = try call.body.requiredString("event_name", maxLength: 256)
                let eventData = try call.body.object("event_data")
                let amount = try eventData?.amount("amount", path: "event_data.amount")
                let currency = try eventData?.string("currency", path: "event_data.currency").map { $0.uppercased() }
                let now = call.now
                var event = EventRecord(
                    projectID: call.project.id, install: .instance(try call.instanceID), name: name,
                    clientEventID: try call.body.string("event_id", maxLength: 256),
                    userID: try call.body.identifier("user_id"),
                    data: eventData.map { String(decoding: JSONValue.object($0.fields).serialized(), as: UTF8.self) },
                    revenue: amount, currency: amount == nil ? nil : (currency ?? call.project.settings.currency),
                    occurredAt: now, receivedAt: now, dataValue: eventData?.fields)
                event.consent = try ConsentFields.consent(call.body, path: "")
                try services.app.activity.recordEvent(
                    event, project: call.project, conversionValues: true,
                    delivery: call.request.writeDelivery
                ) { result in
                    // The store names what is missing; the hint is this API's (its clients call init).
                    let result = result.mapError { error -> any Error in
                        if case StoreError.notFound(let message) = error { return HTTPError.notFound("\(message): call /api/client/init first") }
                        return error
                    }
                    done(
                        result.map { stored in
                            var data: [String: JSONValue] = ["event_id": .string(stored.eventID)]
                            SKANFields.add(stored.skan, to: &data)
                            return data
                        })
                }
            } catch {
                done(.failure(error))
            }
        }
    }

    /// Pooled: it reads the install before it queues the payment.
    /// `POST /api/client/capture-payment`
    static func capturePayment(_ services: Services) -> RouteHandler {
        endpoint(services, pooled: true) { call, done in
            do {
                let install = try call.install()
                guard let userID = try call.body.identifier("user_id"), !userID.isEmpty else {
                    throw HTTPError.badRequest("missing required field 'user_id'", code: "missing_field")
                }
                guard let amount = try call.body.amount("amount") else {
                    throw HTTPError.badRequest("missing required field 'amount'", code: "missing_field")
                }
                let currency = try call.body.string("currency", maxLength: 3)?.uppercased() ?? call.project.settings.currency
                guard currency.count == 3, currency.allSatisfy({ $0.isASCII && $0.isLetter }) else {
                    throw HTTPError.invalidField("currency", "must be a three-letter currency code")
                }
                let now = call.now
                let payment = PaymentRecord(
                    paymentID: try call.body.identifier("payment_id") ?? TimeOrderedID.secure(at: now), userID: userID, amount: amount,
                    currency: currency, type: try call.body.string("type", maxLength: 64) ?? "DEFAULT",
                    status: try call.body.string("status", maxLength: 64) ?? "PAYMENT_COMPLETED", data: try call.body.json("event_data"))
                try services.app.activity.capturePayment(
                    payment, install: install, project: call.project,
                    delivery: call.request.writeDelivery
                ) { result in
                    done(
                        result.map { stored in
                            var data: [String: JSONValue] = ["payment_id": .string(payment.paymentID)]
                            SKANFields.add(stored.skan, to: &data)
                            return data
                        })
                }
            } catch {
                done(.failure(error))
            }
        }
    }

    /// `POST /api/client/remove-captured-payment`
    static func removeCapturedPayment(_ services: Services) -> RouteHandler {
        sync(services) { call in
            let install = try call.install()
            guard let userID = try call.body.identifier("user_id"), !userID.isEmpty else {
                throw HTTPError.badRequest("missing required field 'user_id'", code: "missing_field")
            }
            let removed = try services.app.activity.removePayments(
                install: install, project: call.project, userID: userID,
                paymentID: try call.body.identifier("payment_id"))
            return ["removed": .number(Double(removed))]
        }
    }

    /// `POST /api/client/update-push-token`
    static func updatePushToken(_ services: Services) -> RouteHandler {
        sync(services) { call in
            let install = try call.install()
            try services.app.activity.updateInstall(install.id, pushToken: try call.body.requiredString("push_token", maxLength: 4096))
            return [:]
        }
    }

    /// `POST /api/client/integrations`
    static func integrations(_ services: Services) -> RouteHandler {
        sync(services) { call in
            let install = try call.install()
            guard let info = try call.body.json("integration_info") else {
                throw HTTPError.badRequest("missing required field 'integration_info'", code: "missing_field")
            }
            try services.app.activity.updateInstall(install.id, integrations: info)
            return [:]
        }
    }

    /// `POST /api/client/customer-user-id`
    static func customerUserID(_ services: Services) -> RouteHandler {
        sync(services) { call in
            let install = try call.install()
            guard let userID = try call.body.identifier("user_id"), !userID.isEmpty else {
                throw HTTPError.badRequest("missing required field 'user_id'", code: "missing_field")
            }
            try services.app.activity.updateInstall(install.id, userID: userID)
            return [:]
        }
    }

    /// `POST /api/client/deeplink-triggered`
    static func deeplinkTriggered(_ services: Services) -> RouteHandler {
        sync(services) { call in
            try services.app.activity.updateInstall(try call.install().id, deeplinkOpenedAt: call.now)
            return [:]
        }
    }

    /// `POST /api/client/handle-deeplink`
    static func handleDeeplink(_ services: Services) -> RouteHandler {
        sync(services) { call in
            try DeeplinkHandling.handle(call)
        }
    }

    static func userData(_ body: JSONFields) throws -> UserProfile? {
        guard let user = try body.object("user_data") else { return nil }
        guard let id = try user.identifier("id"), !id.isEmpty else {
            throw HTTPError.badRequest("missing required field 'user_data.id'", code: "missing_field")
        }
        var others = user.fields
        for key in ["id", "name", "email", "phone"] { others[key] = nil }
        let attributes = others.isEmpty ? nil : String(decoding: try JSONCoders.sortedEncoder.encode(JSONValue.object(others)), as: UTF8.self)
        return .init(
            id: id, name: try user.string("name", path: "user_data.name"), email: try user.string("email", path: "user_data.email"),
            phone: try user.string("phone", path: "user_data.phone"), attributes: attributes)
    }

    /// A `POST /api/client/*` endpoint: decode, authenticate by token, run, wrap in the envelope.
    /// - Parameter pooled: the whole endpoint runs on the handler pool (its reads may block);
    ///   otherwise the checks run where the request was read and `handler` must not block.
    static func endpoint(_ services: Services, pooled: Bool = false, _ handler: @escaping Handler) -> RouteHandler {
        let handle: @Sendable (HTTPRequest, @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void) -> Void = { request, done in
            let call: Call
            do {
                let body = try JSONFields(request)
                guard let token = try body.string("token", maxLength: 256), !token.isEmpty else {
                    return done(.success(Envelope.error(.unauthorized, "missing project token (the 'token' field of the body)")))
                }
                guard let project = try services.app.projects.project(forToken: token) else {
                    return done(.success(Envelope.error(.unauthorized, "unknown project token")))
                }
                try RequestSignature.check(
                    request, project: project,
                    secret: { keyID in
                        try services.app.projects.signingSecret(keyID: keyID, projectID: project.id)
                    }, now: services.clock.now())
                call = Call(request: request, body: body, project: project, services: services)
            } catch is MoveToPool {
                return done(.failure(MoveToPool()))  // a cache miss on an event loop: the router moves the request
            } catch {
                return done(.success(services.reported(Envelope.from(error), for: error, to: request)))
            }
            handler(call) { result in
                switch result {
                case .success(let data): done(.success(Envelope.ok(data)))
                case .failure(let error as MoveToPool): done(.failure(error))
                case .failure(let error): done(.success(services.reported(Envelope.from(error), for: error, to: call.request)))
                }
            }
        }
        return pooled ? .pooled(handle) : .deferred(handle)
    }

    /// An endpoint whose work is quick reads and acknowledged writes: run on the handler pool.
    static func sync(_ services: Services, _ body: @escaping @Sendable (Call) throws -> [String: JSONValue]) -> RouteHandler {
        endpoint(services, pooled: true) { call, done in done(Result { try body(call) }) }
    }
}
