import App
import Attribution
import Cryptography
import Foundation
import HTTP
import StoreContracts

/// `POST /api/sdk/v1/install`, `POST /api/sdk/v1/event`, `GET /api/sdk/v1/health` (linkforty-api.md).
enum LinkFortyInstallRoutes {
    static let maximumEventAge: Int64 = 30 * 86_400

    /// `POST /api/sdk/v1/install`
    static func install(_ services: Services) -> RouteHandler {
        let auth = LinkFortyAuth(services: services)
        return .deferred { request, done in
            do {
                let body = try InstallBody(JSONFields(request))
                let project = try auth.project(for: request, appToken: body.appToken)
                let report = try body.report(project: project, request: request, services: services)
                var policy = MatchingPolicy(project: project.settings)
                policy.defaultWindowHours = project.settings.attributionWindowHours
                try services.app.installs.report(
                    report, project: project, policy: policy, conversionValues: false,
                    delivery: request.writeDelivery
                ) { result in
                    done(
                        Result {
                            let outcome = try result.get()
                            if outcome.isNew { services.metrics.recordInstall(matchType: outcome.install.match.matchType.rawValue) }
                            let deepLink =
                                deliversDeferredDeepLink(outcome, reportedAt: report.signals.time)
                                ? deepLinkData(for: outcome, project: project) : nil
                            return .json(bytes: InstallResponse.body(outcome.install, deepLink: deepLink))
                        })
                }
            } catch {
                done(.failure(error))
            }
        }
    }

    /// `POST /api/sdk/v1/event`
    static func event(_ services: Services) -> RouteHandler {
        let auth = LinkFortyAuth(services: services)
        return .deferred { request, done in
            do {
                let body = try EventBody(JSONFields(request))
                guard let projectID = try services.app.projects.owner(ofInstall: body.installId) else {
                    throw HTTPError.notFound("no install \(body.installId)")
                }
                try auth.authorize(request, appToken: body.appToken, forInstallOf: projectID)
                let event = try body.record(projectID: projectID, now: services.app.clocks.now(projectID: projectID))
                try services.app.activity.recordEvent(event, project: nil, conversionValues: false, delivery: request.writeDelivery) { result in
                    done(
                        Result {
                            let stored = try result.get()
                            if stored.duplicate { services.metrics.recordCollapsedEvent() }
                            return .json(bytes: EventResponse.body(eventID: stored.eventID))
                        })
                }
            } catch {
                done(.failure(error))
            }
        }
    }

    /// `GET /api/sdk/v1/health`
    static func health(_ services: Services) -> RouteHandler {
        return .inline { _ in
            try .json(["status": "healthy", "version": "v1", "timestamp": services.clock.now().iso8601], encoder: JSONCoders.encoder)
        }
    }

    /// How long after an install's creation a LinkForty report of it still carries `deepLinkData`:
    /// the SDK's own retry of a report whose answer was lost (it retries 1 s and 2 s after a
    /// failure), not a relaunch (a minute let a relaunch fire `onDeferredDeepLink` again).
    static let deferredDeepLinkRetrySeconds: Int64 = 10

    /// Whether this answer carries the deferred deep link. The LinkForty SDK reports the install
    /// on every `initialize()` and calls `onDeferredDeepLink` whenever an attributed answer has
    /// `deepLinkData`; it caches `deepLinkData` for `getInstallData()` only when one is present.
    /// So the link reaches the app once: with the report that created the install (or its retry),
    /// while later launches' answers say `attributed` with no `deepLinkData`, leaving the cache as it was.
    static func deliversDeferredDeepLink(_ outcome: InstallOutcome, reportedAt time: Timestamp) -> Bool {
        // An install another family created (the same phone through Linkrunner's SDK, a second
        // earlier) already gave its deep link to the app: a LinkForty report of it is no retry.
        outcome.isNew
            || (outcome.install.reporter == "linkforty"
                && time.milliseconds - outcome.install.createdAt.milliseconds < deferredDeepLinkRetrySeconds * 1000)
    }

    /// The link an attributed install came from, as DeepLinkData; nil for organic installs. The
    /// install's transaction read the link: no read here, on the event loop.
    static func deepLinkData(for outcome: InstallOutcome, project: Project) -> DeepLinkData? {
        guard outcome.install.match.attributed, let target = CampaignData.target(of: outcome, project: project) else { return nil }
        return DeepLinkData(target: target, utm: target.utm, clickID: outcome.install.match.clickID, clickedAt: outcome.install.match.clickedAt)
    }
}

/// What the LinkForty SDKs send on every app start. Unknown keys are ignored.
struct InstallBody {
    var userAgent: String
    var timezone: String?
    var language: String?
    var screenWidth: Double?
    var screenHeight: Double?
    var platform: String?
    var platformVersion: String?
    var appVersion: String?
    var deviceId: String?
    var attributionWindowHours: Int?
    var sdkName: String?
    var sdkVersion: String?
    var appToken: String?
    var consent: Consent?
    var adSignals: AdSignals?
    var playReferrer: PlayReferrerTimes?

    /// Read field by field rather than through `Decodable`: the decoder's generic machinery was
    /// 8% of an install answer's instructions. Text fields are unbounded here as they were; what
    /// is stored is cut to size in `report`.
    init(_ body: JSONFields) throws {
        guard let userAgent = try body.string("userAgent", maxLength: .max) else {
            throw HTTPError.badRequest("missing required field 'userAgent'", code: "missing_field")
        }
        self.userAgent = userAgent
        timezone = try body.string("timezone", maxLength: .max)
        language = try body.string("language", maxLength: .max)
        screenWidth = try body.number("screenWidth")
        screenHeight = try body.number("screenHeight")
        platform = try body.string("platform", maxLength: .max)
        platformVersion = try body.string("platformVersion", maxLength: .max)
        appVersion = try body.string("appVersion", maxLength: .max)
        deviceId = try body.string("deviceId", maxLength: .max)
        attributionWindowHours = try body.integer("attributionWindowHours")
        sdkName = try body.string("sdkName", maxLength: .max)
        sdkVersion = try body.string("sdkVersion", maxLength: .max)
        appToken = try body.string("appToken", maxLength: .max)
        consent = try ConsentFields.consent(body, path: "")
        adSignals = try ConsentFields.signals(
            [body], referrer: try body.string("installReferrer", maxLength: 4096) ?? body.string("install_referrer", maxLength: 4096))
        playReferrer = try PlayReferrerFields.times([body])
    }

    func report(project: Project, request: HTTPRequest, services: Services) throws -> InstallReport {
        if let hours = attributionWindowHours, !ProjectSettings.attributionWindowRange.contains(hours) {
            throw HTTPError.invalidField("attributionWindowHours", "must be between 1 and 2160")
        }
        for (key, value) in [("screenWidth", screenWidth), ("screenHeight", screenHeight)] {
            if let value, !ScreenSize.isPlausibleSide(value) { throw HTTPError.invalidField(key, "must be a number of pixels from 1 to 20000") }
        }
        let client = services.clientIP.clientAddress(of: request)
        let agent = UserAgentParser.parse(userAgent)
        let platform = UserAgentInfo.Platform(declared: platform) ?? (agent.platform == .bot || agent.platform == .desktop ? nil : agent.platform)
        // Signals that do not parse are left out rather than failing the install report.
        let zone = timezone.flatMap { TimeZoneNames.isValid($0) ? $0 : nil }
        let languageTag = language.flatMap { LanguageTag.isPlausible(String($0.prefix(35))) ? String($0.prefix(35)) : nil }
        let screen = screenWidth.flatMap { width in screenHeight.map { ScreenSize(width: Int(width.rounded()), height: Int($0.rounded())) } }
        let network = services.addressLists.network(of: client)
        let ipKey = network.ipKey
        let deviceID = deviceId.flatMap { $0.isEmpty || $0 == "00000000-0000-0000-0000-000000000000" ? nil : String($0.prefix(128)) }
        // Apps are told to pass the IDFV as `deviceId` on iOS: a UUID there is the IDFV (the one
        // install across SDK families); anything else, and any `deviceId` on Android, is an advertising id.
        let idfv = platform == .ios ? deviceID.flatMap { Identifiers.isUUID($0) ? $0 : nil } : nil
        let fingerprint = Secrets.sha256Hex(
            InstallIdentity.fingerprintSource(
                ipKey: ipKey, userAgent: userAgent, timezone: zone, language: languageTag, screen: screen, platformVersion: platformVersion))
        let signals = InstallSignals(
            time: services.now(for: project), ipKey: ipKey, platform: platform,
            osVersion: platformVersion ?? agent.osVersion, deviceClass: nil, screen: screen, timezone: zone,
            languages: languageTag.map { [$0] } ?? [], idfv: idfv, advertisingID: idfv == nil ? deviceID : nil)
        var report = InstallReport(
            projectID: project.id, reporter: "linkforty",
            identity: InstallIdentity(deviceID: deviceID, fingerprint: fingerprint, idfv: idfv), signals: signals,
            appVersion: appVersion.map { String($0.prefix(64)) }, ip: client?.ipString,
            userAgent: userAgent.prefix(characters: 1024), windowHoursLimit: attributionWindowHours,
            country: services.countries.country(of: request, resolver: services.clientIP) ?? CountryCode.region(ofLocale: languageTag),
            isTest: BearerToken.from(request).map(APIKeyFormat.isTestKey) ?? false, consent: consent, adSignals: adSignals)
        report.classify(network, lists: services.addressLists, playReferrer: playReferrer)
        return report
    }
}

/// Every key present, `deepLinkData` explicitly null for organic installs (an empty object makes
/// the iOS SDK throw and never store the installId).
enum InstallResponse {
    /// Keys in sorted order, written by hand (see `DeepLinkData.append(to:)`).
    static func body(_ install: StoredInstall, deepLink: DeepLinkData?) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(deepLink == nil ? 160 : 640)
        var object = JSONObjectWriter(into: &bytes)
        object.key("attributed", to: &bytes)
        bytes.append(contentsOf: (install.match.attributed ? "true" : "false").utf8)
        object.key("confidenceScore", to: &bytes)
        ByteText.appendDecimal(Int((install.match.confidence * 100).rounded()), to: &bytes)
        object.key("deepLinkData", to: &bytes)
        if let deepLink { deepLink.append(to: &bytes) } else { bytes.append(contentsOf: "null".utf8) }
        object.string("installId", install.id, to: &bytes)
        object.key("matchedFactors", to: &bytes)
        bytes.append(UInt8(ascii: "["))
        for (offset, factor) in install.match.matchedFactors.enumerated() {
            if offset > 0 { bytes.append(UInt8(ascii: ",")) }
            ByteText.appendJSONString(factor, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
        object.close(&bytes)
        return bytes
    }
}

/// `POST /api/sdk/v1/event`'s body (`sessionId` and the SDK's other extras are accepted and not kept).
struct EventBody {
    var installId: String
    var eventName: String
    var eventData: [String: JSONValue]?
    var timestamp: String?
    /// The project's token, sent by some SDKs; a credential where the project's `sdk_auth` is `required`.
    var appToken: String?

    var consent: Consent?

    init(_ body: JSONFields) throws {
        installId = try body.requiredString("installId", maxLength: 256)
        appToken = try body.string("appToken", maxLength: 256)
        guard let name = try body.string("eventName", maxLength: 4096) else {
            throw HTTPError.badRequest("missing required field 'eventName'", code: "missing_field")
        }
        eventName = name
        eventData = try body.object("eventData")?.fields
        timestamp = try body.string("timestamp", maxLength: 64)
        consent = try ConsentFields.consent(body, path: "")
    }

    func record(projectID: String, now: Timestamp) throws -> EventRecord {
        let name = eventName.trimmingWhitespace()
        guard !name.isEmpty, name.count <= 256 else { throw HTTPError.invalidField("eventName", "must be 1 to 256 characters") }
        var occurredAt = now
        if let timestamp {
            guard let parsed = Timestamp(iso8601: timestamp) else { throw HTTPError.invalidField("timestamp", "must be an ISO 8601 time") }
            guard now.milliseconds - parsed.milliseconds <= LinkFortyInstallRoutes.maximumEventAge * 1000 else {
                throw HTTPError.invalidField("timestamp", "is more than 30 days old")
            }
            guard parsed.milliseconds - now.milliseconds <= 86_400_000 else {
                throw HTTPError.invalidField("timestamp", "is more than a day in the future")
            }
            occurredAt = parsed
        }
        var revenue: Double?
        var currency: String?
        if let value = eventData?["revenue"] {
            guard case .number(let amount) = value, JSONFields.isPlausibleAmount(amount) else {
                throw HTTPError.invalidField("eventData.revenue", "must be a finite number below 10^12")
            }
            revenue = amount
        }
        if let value = eventData?["currency"] {
            guard case .string(let code) = value, code.count == 3, code.allSatisfy({ $0.isASCII && $0.isLetter }) else {
                throw HTTPError.invalidField("eventData.currency", "must be a three-letter currency code")
            }
            currency = code.uppercased()
        }
        let data = eventData.map { String(decoding: JSONValue.object($0).serialized(), as: UTF8.self) }
        // The SDKs re-send queued events: with the client's time, the same install, name, time and
        // data is one event. Without it the time is ours, and every request is a new event.
        // 64 bits of SHA-256: compared only among one install's events at one millisecond.
        let contentKey = timestamp.map { _ in String(Secrets.sha256Hex(name + "\u{1F}" + (data ?? "")).prefix(16)) }
        var record = EventRecord(
            projectID: projectID, install: .id(installId), name: name, contentKey: contentKey, data: data,
            revenue: revenue, currency: currency, occurredAt: occurredAt, receivedAt: now, dataValue: eventData)
        record.consent = consent
        return record
    }
}

/// `{"acknowledged":true,"eventId":"…","success":true}`, as the sorted-key encoder wrote it, built
/// directly: `JSONEncoder` cost a few µs per event.
enum EventResponse {
    static func body(eventID: String) -> [UInt8] {
        var body = Array(#"{"acknowledged":true,"eventId":"#.utf8)
        ByteText.appendJSONString(eventID, to: &body)
        body.append(contentsOf: #","success":true}"#.utf8)
        return body
    }
}
