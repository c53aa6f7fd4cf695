import API
import App
import Attribution
import Cryptography
import Foundation
import HTTP
import Store
import StoreContracts

/// Runs a simulated population through the real application — routes, handlers, matching engine
/// and store — in process, on a temporary database, in a test-mode project whose clock the
/// simulation moves from one action to the next. Then scores what the engine decided.
public enum Simulation {
    public struct Settings: Sendable {
        public var model = PopulationModel()
        public var seed: UInt64 = 1
        public var minConfidence = ProjectSettings().minConfidence
        public var attributionWindowHours = 168
        /// Keep the database here (a path that does not exist yet) instead of deleting it.
        public var databasePath: String?
        /// After the campaign, the installed apps' events: opens, signups and purchases over two
        /// weeks (`AppEvents`), charted on their days.
        public var appEvents = false

        public init() {}
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// - Parameter progress: (actions done, actions in all), called now and then.
    public static func run(_ settings: Settings, progress: (Int, Int) -> Void = { _, _ in }) throws -> AccuracyReport {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-simulate-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        if let kept = settings.databasePath, FileManager.default.fileExists(atPath: kept) {
            throw Failure(description: "\(kept) already exists: the simulation keeps its database in a new file")
        }
        let database = try Database(path: settings.databasePath ?? folder.appendingPathComponent("simulation.sqlite").path)
        let adminKey = Secrets.generate(prefix: "sim_")
        // The relay's egress list, as an operator loads Apple's, when the population has relay taps.
        let lists =
            settings.model.privateRelayShare > 0
            ? AddressLists(
                AddressRanges(blocks: [AddressRanges.carrierNATSpace] + AddressListFile.privateRelay(Population.relayList).blocks),
                hasRelayList: true) : AddressLists()
        let services = Services(store: SQLiteStore(database: database), adminKey: adminKey, addressLists: lists)
        let client = InProcessClient(responder: Application.makeRouter(services: services))
        let admin: HTTPHeaders = ["Authorization": "Bearer \(adminKey)"]
        let loopback = "127.0.0.1"

        // The project and its link, through the admin API.
        let project = try object(
            client.send(
                .post, "/admin/v1/projects", from: loopback, headers: admin,
                json: """
                    {"name":"simulation","test_mode":true,"min_confidence":\(settings.minConfidence),\
                    "attribution_window_hours":\(settings.attributionWindowHours),\
                    "ios_store_url":"https://apps.apple.com/app/id1","android_store_url":"https://play.google.com/store/apps/details?id=com.example"}
                    """), expecting: 201)
        guard case .string(let projectID)? = project["id"], case .string(let token)? = project["token"],
            case .string(let apiKey)? = project["api_key"]
        else { throw Failure(description: "the admin API did not return the project") }
        _ = try object(
            client.send(
                .post, "/admin/v1/projects/\(projectID)/links", from: loopback, headers: admin,
                json:
                    #"{"short_code":"campaign","title":"Winter sale","app_scheme":"example","deep_link_path":"/offer","utm":{"source":"newsletter","medium":"email","campaign":"winter-sale"}}"#
            ),
            expecting: 201)
        let clockPath = "/admin/v1/projects/\(projectID)/clock"
        guard
            case .number(let startMilliseconds)? = try object(client.send(.get, clockPath, from: loopback, headers: admin), expecting: 200)["now_ms"]
        else {
            throw Failure(description: "the clock API did not return now_ms")
        }
        let start = Int64(startMilliseconds)

        var random = SeededGenerator(seed: settings.seed)
        var opening = SeededGenerator(seed: settings.seed ^ 0x5EED_0F_A99_0BE4)
        var traffic = SeededGenerator(seed: settings.seed ^ 0x7EA7_F1C0_0A11_7E57)
        let population = Population.generate(
            settings.model, start: Date(timeIntervalSince1970: Double(start) / 1000), random: &random,
            opening: &opening, traffic: &traffic)
        var report = AccuracyReport(
            seed: settings.seed, model: settings.model, minConfidence: settings.minConfidence,
            attributionWindowHours: settings.attributionWindowHours)
        var clicksOf: [Int: [(id: String, at: Int64, address: String, relayed: Bool, beaconed: Bool)]] = [:]
        var injected: Set<String> = []
        var flood: Set<String> = []
        var relayedClicks: Set<String> = []
        var installs: [(person: Int, installID: String, at: Int64, address: String, referred: Bool)] = []
        var clockAt: Int64 = 0

        let appEvents = settings.appEvents ? AppEvents.Sender(seed: settings.seed, client: client, apiKey: apiKey, start: start) : nil
        /// Moves the project's clock to `offset` (milliseconds from the start), sending the app
        /// events that fall due on the way.
        func advance(to offset: Int64) throws {
            while offset > clockAt {
                let step = min(offset, appEvents?.nextDue.map { max($0, clockAt + 1) } ?? offset)
                let seconds = Double(step - clockAt) / 1000
                _ = try object(
                    client.send(.post, clockPath, from: loopback, headers: admin, json: #"{"advance_seconds":\#(seconds)}"#), expecting: 200)
                clockAt = step
                try appEvents?.sendDue(by: clockAt)
            }
        }

        for (done, action) in population.actions.enumerated() {
            if done % 50 == 0 { progress(done, population.actions.count) }
            try advance(to: action.offsetMilliseconds)
            switch action.kind {
            case .click(let person, let userAgent, let acceptLanguage, let beacon):
                var headers: HTTPHeaders = ["User-Agent": userAgent]
                if let acceptLanguage { headers.add("Accept-Language", acceptLanguage) }
                let response = client.send(.get, "/campaign", from: action.address, headers: headers)
                guard let clickID = response.headers["X-Click-Id"] else {
                    throw Failure(description: "a click was answered \(response.status.code) without X-Click-Id")
                }
                guard let person else {
                    report.counts.botClicks += 1
                    continue
                }
                report.counts.clicks += 1
                if action.relayed {
                    report.traffic.relayedTaps += 1
                    relayedClicks.insert(clickID)
                }
                clicksOf[person, default: []].append((clickID, action.offsetMilliseconds, action.address, action.relayed, beacon != nil))
                if let beacon {
                    let answer = client.send(.post, "/c/\(clickID)", from: action.address, json: beacon.json)
                    guard answer.status.code == 204 else {
                        throw Failure(description: "a beacon was answered \(answer.status.code): \(String(decoding: answer.body, as: UTF8.self))")
                    }
                }
            case .injectedClick(_, let userAgent):
                let response = client.send(.get, "/campaign", from: action.address, headers: ["User-Agent": userAgent])
                guard let clickID = response.headers["X-Click-Id"] else {
                    throw Failure(description: "an injected click was answered \(response.status.code) without X-Click-Id")
                }
                injected.insert(clickID)
            case .floodClick(_, let userAgent):
                let response = client.send(.get, "/campaign", from: action.address, headers: ["User-Agent": userAgent])
                guard let clickID = response.headers["X-Click-Id"] else {
                    throw Failure(description: "a flood click was answered \(response.status.code) without X-Click-Id")
                }
                flood.insert(clickID)
            case .install(let index):
                let person = population.people[index]
                let (installID, referred) = try install(
                    person, at: Date(timeIntervalSince1970: Double(start + action.offsetMilliseconds) / 1000),
                    from: action.address, clicks: (clicksOf[index] ?? []).map { ($0.id, $0.at) },
                    client: client, token: token, apiKey: apiKey,
                    playReferrerShare: settings.model.playReferrerShare,
                    installBegan: action.installBeganAt.map { Date(timeIntervalSince1970: Double(start + $0) / 1000) },
                    clicksStart: start, random: &random)
                installs.append((index, installID, action.offsetMilliseconds, action.address, referred))
                appEvents?.plan(installID: installID, installedAt: action.offsetMilliseconds)
            case .appOpen(let index):
                report.counts.appOpens += 1
                try openInApp(
                    population.people[index], at: Date(timeIntervalSince1970: Double(start + action.offsetMilliseconds) / 1000),
                    from: action.address, client: client, token: token, apiKey: apiKey)
            }
        }
        while let due = appEvents?.nextDue { try advance(to: max(due, clockAt + 1)) }
        progress(population.actions.count, population.actions.count)
        try services.app.store.waitForQueuedWrites()

        let outcomes = try services.app.installs.attributionRecords(projectID: projectID)
        let byID = Dictionary(outcomes.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let window = Int64(settings.attributionWindowHours) * 3_600_000
        for (person, installID, at, address, referred) in installs {
            guard let outcome = byID[installID] else { throw Failure(description: "install \(installID) was not stored") }
            let own = clicksOf[person] ?? []
            // The ground truth: the person's own clicks, recorded as they were made.
            let inWindow = own.filter { $0.at <= at && at - $0.at <= window }
            let clickedInWindow = !inWindow.isEmpty
            report.counts.installs += 1
            if clickedInWindow { report.counts.clickedInstalls += 1 }
            // What any signal the server receives could reach: a click id the install carries, or
            // a click made from the install's own address.
            // A relayed tap is reached by its region and beacon within the relay window (docs/traffic-quality.md).
            let relayReachable = inWindow.contains { $0.relayed && $0.beaconed && at - $0.at < Self.relayWindowMilliseconds }
            if clickedInWindow && (referred || relayReachable || inWindow.contains { $0.address == address && !$0.relayed }) {
                report.counts.reachableInstalls += 1
            }
            let correct = outcome.clickID.map { id in own.contains { $0.id == id } } ?? false
            if inWindow.contains(where: \.relayed) {
                report.traffic.relayedInstalls += 1
                if correct, let id = outcome.clickID, own.contains(where: { $0.id == id && $0.relayed }) { report.traffic.matchedByRelayTap += 1 }
            }
            if let id = outcome.clickID, injected.contains(id) { report.traffic.injectedWon += 1 }
            if let id = outcome.clickID, flood.contains(id) { report.traffic.floodWon += 1 }
            if outcome.attributed, let id = outcome.clickID, relayedClicks.contains(id) {
                report.traffic.relayMatches += 1
                if correct { report.traffic.relayMatchesCorrect += 1 }
            }
            if let refused = outcome.rejectedClickID {
                for reason in outcome.rejectedReasons { report.traffic.rejections[reason, default: 0] += 1 }
                if injected.contains(refused) { report.traffic.injectedRefused += 1 }
                if flood.contains(refused) { report.traffic.floodRefused += 1 }
                if own.contains(where: { $0.id == refused }) { report.traffic.honestRejected += 1 }
            }
            if outcome.attributed {
                report.counts.attributed += 1
                if outcome.matchType == "deterministic" { report.counts.deterministic += 1 } else { report.counts.probabilistic += 1 }
                if correct { report.counts.truePositives += 1 } else { report.counts.falsePositives += 1 }
                let age = outcome.createdAt - (outcome.clickedAt ?? outcome.createdAt)
                let band = outcome.matchType == "deterministic" ? 0 : age < 3_600_000 ? 1 : age < 86_400_000 ? 2 : 3
                report.bands[band].matches += 1
                report.bands[band].confidenceSum += outcome.confidence
                if correct { report.bands[band].correct += 1 }
            }
            if clickedInWindow && !(outcome.attributed && correct) { report.counts.falseNegatives += 1 }
        }
        report.traffic.injectedClicks = injected.count
        report.traffic.floodClicks = flood.count
        try services.app.store.close()
        return report
    }

    static let relayWindowMilliseconds = MatchingPolicy().relayWindowSeconds * 1000

    /// Reports one install as the person's SDK would; returns the install id it was given, and
    /// whether its Play referrer carried a click id.
    static func install(
        _ person: Person, at moment: Date, from address: String, clicks: [(id: String, at: Int64)],
        client: InProcessClient, token: String, apiKey: String, playReferrerShare: Double,
        installBegan: Date? = nil, clicksStart: Int64 = 0, random: inout SeededGenerator
    ) throws -> (String, Bool) {
        let device = person.device
        let ios = device.platform == .ios
        let offsetEast = (TimeZone(identifier: person.timezone)?.secondsFromGMT(for: moment) ?? 0) / 60
        switch person.client {
        case .linkrunner:
            var data =
                #""device":"\#(device.model)","system_version":"\#(device.osVersion)","device_display":{"width":\#(device.widthPoints),"height":\#(device.heightPoints),"scale":\#(device.scale)},"timezone":"\#(person.timezone)","timezone_offset":\#(offsetEast),"locale":"\#(person.language)_\#(person.region)","language":"\#(person.language)""#
            data += ios ? #","idfv":"\#(person.installIdentifier)""# : #","gaid":"\#(person.installIdentifier)""#
            // Installed from the Play Store after a click: the referrer may carry our click id.
            var referred = false
            if !ios, let last = clicks.last, random.chance(playReferrerShare) {
                data += #","install_ref":"utm_source=simulation&click_id=\#(last.id)""#
                referred = true
                if installBegan != nil { data += #","referrer_click_timestamp_seconds":\#((clicksStart + last.at) / 1000)"# }
            }
            // Play's install-begin time, sent with the fraud knobs only (the population without
            // them reports as it always did).
            if let installBegan { data += #","install_begin_timestamp_seconds":\#(Int64(installBegan.timeIntervalSince1970))"# }
            let body =
                #"{"token":"\#(token)","platform":"\#(ios ? "IOS" : "ANDROID")","install_instance_id":"\#(person.installIdentifier)","app_version":"1.0.0","device_data":{\#(data)}}"#
            let envelope = try object(client.send(.post, "/api/client/init", from: address, json: body), expecting: 200)
            guard case .object(let fields)? = envelope["data"], case .string(let id)? = fields["install_id"] else {
                throw Failure(description: "init did not return data.install_id")
            }
            return (id, referred)
        case .linkforty:
            let agent = ios ? "Example/1.0 iOS/\(device.osVersion)" : "Example/1.0 Android/\(device.osVersion)"
            let body =
                #"{"userAgent":"\#(agent)","timezone":"\#(person.timezone)","language":"\#(person.language)-\#(person.region)","screenWidth":\#(Int(Double(device.widthPoints) * device.scale)),"screenHeight":\#(Int(Double(device.heightPoints) * device.scale)),"platform":"\#(ios ? "iOS" : "Android")","platformVersion":"\#(device.osVersion)","appVersion":"1.0.0","deviceId":"\#(person.installIdentifier)"}"#
            let answer = try object(
                client.send(
                    .post, "/api/sdk/v1/install", from: address, headers: ["Authorization": "Bearer \(apiKey)"],
                    json: body), expecting: 200)
            guard case .string(let id)? = answer["installId"] else { throw Failure(description: "install did not return installId") }
            return (id, false)
        }
    }

    /// The installed app opened by the campaign's link, as the person's SDK reports it.
    static func openInApp(_ person: Person, at moment: Date, from address: String, client: InProcessClient, token: String, apiKey: String) throws {
        let device = person.device
        let ios = device.platform == .ios
        switch person.client {
        case .linkrunner:
            let offsetEast = (TimeZone(identifier: person.timezone)?.secondsFromGMT(for: moment) ?? 0) / 60
            var data =
                #""device":"\#(device.model)","system_version":"\#(device.osVersion)","device_display":{"width":\#(device.widthPoints),"height":\#(device.heightPoints),"scale":\#(device.scale)},"timezone":"\#(person.timezone)","timezone_offset":\#(offsetEast),"locale":"\#(person.language)_\#(person.region)","language":"\#(person.language)""#
            data += ios ? #","idfv":"\#(person.installIdentifier)""# : #","gaid":"\#(person.installIdentifier)""#
            let body =
                #"{"token":"\#(token)","platform":"\#(ios ? "IOS" : "ANDROID")","install_instance_id":"\#(person.installIdentifier)","deeplink_url":"https://go.example/campaign","device_data":{\#(data)}}"#
            _ = try object(client.send(.post, "/api/client/handle-deeplink", from: address, json: body), expecting: 200)
        case .linkforty:
            let agent = ios ? "Example/1.0 iOS/\(device.osVersion)" : "Example/1.0 Android/\(device.osVersion)"
            let query =
                "fp_tz=\(person.timezone)&fp_sw=\(Int(Double(device.widthPoints) * device.scale))&fp_sh=\(Int(Double(device.heightPoints) * device.scale))"
                + "&fp_lang=\(person.language)-\(person.region)&fp_platform=\(ios ? "iOS" : "Android")&fp_pv=\(device.osVersion)"
            // The app's SDK is configured with the project's API key, as for its install reports.
            _ = try object(
                client.send(
                    .get, "/api/sdk/v1/resolve/campaign?\(query)", from: address, headers: ["User-Agent": agent, "Authorization": "Bearer \(apiKey)"]),
                expecting: 200)
        }
    }

    static func object(_ response: HTTPResponse, expecting status: Int) throws -> [String: JSONValue] {
        guard response.status.code == status, case .object(let fields) = try JSONValueParser.parse(response.body) else {
            throw Failure(description: "expected \(status), got \(response.status.code): \(String(decoding: response.body, as: UTF8.self))")
        }
        return fields
    }
}
