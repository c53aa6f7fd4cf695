import Attribution
import Foundation

/// A simulated person's phone, as both its browser and its app describe it.
struct Device: Sendable {
    enum Platform: Sendable { case ios, android }
    let platform: Platform
    let model: String
    let osVersion: String
    let widthPoints: Int
    let heightPoints: Int
    let scale: Double
    /// What the phone's browser sends when the link is tapped.
    let browserUserAgent: String
}

struct Person: Sendable {
    enum Client: Sendable { case linkrunner, linkforty }
    let index: Int
    let device: Device
    let timezone: String
    let language: String
    let region: String
    let homeAddress: String
    let cellularAddress: String
    let client: Client
    /// Linkrunner's install_instance_id, or LinkForty's deviceId.
    let installIdentifier: String
}

/// What the interstitial page reports about the browser.
struct BeaconSignals: Sendable {
    let json: String
}

/// One thing that happens at a moment of the simulation.
struct Action: Sendable {
    enum Kind: Sendable {
        /// A tap on the link; `person` nil for a bot.
        case click(person: Int?, userAgent: String, acceptLanguage: String?, beacon: BeaconSignals?)
        case install(person: Int)
        /// The installed app opened by the link (Linkrunner `handle-deeplink`, LinkForty resolve).
        case appOpen(person: Int)
        /// A click fired on the person's phone by another app, as the install completes (fraud).
        case injectedClick(person: Int, userAgent: String)
        /// One of a flooding source's burst of clicks from the person's address (fraud).
        case floodClick(person: Int, userAgent: String)
    }
    let offsetMilliseconds: Int64
    let address: String
    let kind: Kind
    /// A tap through Private Relay: `address` is the region's shared egress.
    var relayed = false
    /// When Play began the install (installs of Linkrunner Android people, with the fraud knobs).
    var installBeganAt: Int64? = nil
}

/// People and what they do, drawn from a `PopulationModel` with a seeded generator.
struct Population: Sendable {
    let people: [Person]
    let actions: [Action]

    static let campaignZones: [(String, Double)] = [
        ("America/New_York", 0.55), ("America/Chicago", 0.2), ("America/Los_Angeles", 0.15), ("Europe/London", 0.05), ("Asia/Kolkata", 0.05),
    ]
    static let languages: [((String, String), Double)] = [(("en", "US"), 0.8), (("es", "US"), 0.15), (("fr", "CA"), 0.05)]
    /// The one iPhone and iOS version a large share of people have (what makes them look alike).
    static let popularIPhone = ("iPhone15,4", 393, 852, 3.0, "18.1")
    static let iPhones: [(String, Int, Int, Double)] = [
        ("iPhone14,5", 390, 844, 3), ("iPhone14,7", 390, 844, 3), ("iPhone15,2", 393, 852, 3), ("iPhone16,2", 430, 932, 3),
        ("iPhone12,1", 414, 896, 2), ("iPhone14,6", 375, 667, 2), ("iPhone17,1", 402, 874, 3),
    ]
    static let iOSVersions = ["16.7", "17.5", "17.6", "18.0", "18.1", "18.2"]
    static let androids: [(String, Int, Int, Double)] = [
        ("Pixel 8", 412, 915, 2.625), ("SM-S911B", 360, 780, 3), ("SM-A546B", 384, 854, 2.8125), ("Redmi Note 12", 393, 873, 2.75),
        ("Pixel 7a", 412, 915, 2.625), ("moto g54 5G", 412, 915, 2.625),
    ]
    static let androidVersions = ["12", "13", "14", "15"]
    static let bots = [
        "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
        "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "Twitterbot/1.0",
    ]

    /// - Parameter opening: draws the in-app opens alone, so that the rest of the population is
    ///   the same whatever their share.
    /// - Parameter traffic: draws relay and fraud alone, likewise.
    static func generate(
        _ model: PopulationModel, start: Date, random: inout SeededGenerator, opening: inout SeededGenerator,
        traffic: inout SeededGenerator
    ) -> Population {
        let span = model.days * 86_400_000
        var people: [Person] = []
        var actions: [Action] = []

        // Home addresses: households fill up to their size before the next one opens.
        var household = (address: "", left: 0)
        var nextHome = 0
        let natUsers = max(1, Int((Double(model.users) * model.carrierNATShare).rounded()))
        let natAddresses = max(1, (natUsers + model.carrierNATUsersPerAddress - 1) / model.carrierNATUsersPerAddress)

        for index in 0..<model.users {
            let homeAddress: String
            if random.chance(model.householdShare) {
                if household.left == 0 {
                    nextHome += 1
                    household = (address(10, nextHome), Int.random(in: 2...5, using: &random))
                }
                homeAddress = household.address
                household.left -= 1
            } else {
                nextHome += 1
                homeAddress = address(10, nextHome)
            }
            let cellular =
                random.chance(model.carrierNATShare)
                ? address(100, 64 * 65_536 + Int.random(in: 0..<natAddresses, using: &random))
                : address(172, 16 * 65_536 + index)
            let (language, region) = random.weighted(languages)
            let person = Person(
                index: index, device: device(model, &random, language: language, region: region),
                timezone: random.weighted(campaignZones), language: language, region: region,
                homeAddress: homeAddress, cellularAddress: cellular,
                client: random.chance(model.linkrunnerShare) ? .linkrunner : .linkforty,
                installIdentifier: identifier(&random))
            people.append(person)

            func network(_ cellularNow: Bool) -> String { cellularNow ? person.cellularAddress : person.homeAddress }
            if model.floodingShare > 0, traffic.chance(model.floodingShare) {
                let start = Int64(Double.random(in: 0..<span, using: &traffic))
                let step = 600_000 / Int64(model.floodBurstClicks)
                for burst in 0..<model.floodBurstClicks {
                    actions.append(
                        Action(
                            offsetMilliseconds: start + Int64(burst) * step, address: person.homeAddress,
                            kind: .floodClick(person: index, userAgent: person.device.browserUserAgent)))
                }
            }
            /// Someone with the app opens the campaign's link inside it later on, at home or on
            /// cellular, where the household or the carrier NAT shares the address.
            func openLater(installedAt: Int64) {
                guard opening.chance(model.inAppOpenShare) else { return }
                let at = installedAt + 60_000 + Int64(Double.random(in: 0..<max(1, span - Double(installedAt)), using: &opening))
                actions.append(Action(offsetMilliseconds: at, address: network(opening.chance(model.cellularShare)), kind: .appOpen(person: index)))
            }
            if random.chance(model.clickShare) {
                let first = Int64(Double.random(in: 0..<span, using: &random))
                let onCellular = random.chance(model.cellularShare)
                let installs = random.chance(model.installAfterClickShare)
                let delay = Int64(random.logNormal(median: model.delayMedianMinutes, sigma: model.delaySpread) * 60_000)
                var clickTimes = [first]
                if random.chance(model.repeatClickShare) {
                    let again =
                        installs
                        ? Int64(Double.random(in: 0..<1, using: &random) * Double(delay))
                        : Int64(random.logNormal(median: 10, sigma: 1) * 60_000)
                    clickTimes.append(first + max(1000, again))
                }
                let beacon = random.chance(model.beaconShare) ? beaconSignals(person, at: start.addingTimeInterval(Double(first) / 1000)) : nil
                // Private Relay carries Safari alone: in-app browsers and Android send from the network.
                let relayed =
                    model.privateRelayShare > 0 && person.device.platform == .ios && !person.device.browserUserAgent.contains("Instagram")
                    && traffic.chance(model.privateRelayShare)
                let relayAddress = relayed ? relayEgress(region: region, model: model, &traffic) : nil
                for time in clickTimes {
                    var tap = Action(
                        offsetMilliseconds: time, address: relayAddress ?? network(onCellular),
                        kind: .click(
                            person: index, userAgent: person.device.browserUserAgent,
                            acceptLanguage: "\(language)-\(region),\(language);q=0.9", beacon: beacon))
                    tap.relayed = relayed
                    actions.append(tap)
                }
                if installs {
                    let switched = random.chance(model.ipChangeShare)
                    let installAt = max(first + delay, clickTimes.max()! + 1000)
                    let address = network(switched ? !onCellular : onCellular)
                    actions += installActions(
                        person, at: installAt, address: address, lastTap: clickTimes.max(), model: model, &traffic)
                    openLater(installedAt: installAt)
                }
            } else if random.chance(model.organicInstallShare) {
                let installAt = Int64(Double.random(in: 0..<span, using: &random))
                actions += installActions(person, at: installAt, address: network(random.chance(model.cellularShare)), model: model, &traffic)
                openLater(installedAt: installAt)
            }

        }

        let humanClicks = actions.filter { if case .click = $0.kind { true } else { false } }.count
        for bot in 0..<Int((Double(humanClicks) * model.botClicksPerClick).rounded()) {
            actions.append(
                Action(
                    offsetMilliseconds: Int64(Double.random(in: 0..<span, using: &random)), address: address(198, 18 * 65_536 + bot),
                    kind: .click(person: nil, userAgent: bots[bot % bots.count], acceptLanguage: nil, beacon: nil)))
        }
        // Stable: two actions at the same millisecond keep the order they were drawn in.
        let ordered = actions.enumerated().sorted { ($0.element.offsetMilliseconds, $0.offset) < ($1.element.offsetMilliseconds, $1.offset) }
        return Population(people: people, actions: ordered.map(\.element))
    }

    static func device(_ model: PopulationModel, _ random: inout SeededGenerator, language: String, region: String) -> Device {
        if random.chance(model.iosShare) {
            let (name, width, height, scale, version) =
                random.chance(model.popularDeviceShare)
                ? popularIPhone
                : {
                    let phone = iPhones.randomElement(using: &random)!
                    return (phone.0, phone.1, phone.2, phone.3, iOSVersions.randomElement(using: &random)!)
                }()
            let underscored = version.replacingOccurrences(of: ".", with: "_")
            let agent =
                random.chance(0.25)
                ? "Mozilla/5.0 (iPhone; CPU iPhone OS \(underscored) like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 350.0.0.27.93 (\(name); iOS \(underscored); \(language)_\(region); \(language)-\(region); scale=\(String(format: "%.2f", scale)); \(Int(Double(width) * scale))x\(Int(Double(height) * scale)); 640815277)"
                : "Mozilla/5.0 (iPhone; CPU iPhone OS \(underscored) like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/\(version) Mobile/15E148 Safari/604.1"
            return Device(
                platform: .ios, model: name, osVersion: version, widthPoints: width, heightPoints: height, scale: scale,
                browserUserAgent: agent)
        }
        let (name, width, height, scale) = androids.randomElement(using: &random)!
        let version = androidVersions.randomElement(using: &random)!
        // Chrome sends its reduced UA (no model, Android frozen at 10); Samsung Internet does not.
        let agent =
            name.hasPrefix("SM-") && random.chance(0.5)
            ? "Mozilla/5.0 (Linux; Android \(version); SAMSUNG \(name)) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36"
            : "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36"
        return Device(
            platform: .android, model: name, osVersion: version, widthPoints: width, heightPoints: height, scale: scale,
            browserUserAgent: agent)
    }

    static func beaconSignals(_ person: Person, at moment: Date) -> BeaconSignals {
        let offsetWest = -(TimeZone(identifier: person.timezone)?.secondsFromGMT(for: moment) ?? 0) / 60
        let device = person.device
        return BeaconSignals(
            json:
                #"{"sw":\#(device.widthPoints),"sh":\#(device.heightPoints),"dpr":\#(device.scale),"tz":"\#(person.timezone)","tzo":\#(offsetWest),"langs":["\#(person.language)-\#(person.region)","\#(person.language)"]}"#
        )
    }

    /// The install, and before it what the fraud knobs add: Play's install-begin time for a
    /// Linkrunner Android install (its download took 25 to 120 s), and, for a share of those, a
    /// click another app on the phone fires after the install began and before it completes.
    /// The install begins after the person's last tap (the tap, the store, then Install).
    static func installActions(
        _ person: Person, at installAt: Int64, address: String, lastTap: Int64? = nil, model: PopulationModel,
        _ traffic: inout SeededGenerator
    ) -> [Action] {
        var install = Action(offsetMilliseconds: installAt, address: address, kind: .install(person: person.index))
        guard model.injectedClickShare > 0, person.device.platform == .android, person.client == .linkrunner else { return [install] }
        let download = Int64(Double.random(in: 25_000..<120_000, using: &traffic))
        let began = min(installAt - 500, max((lastTap ?? .min / 2) + 1_000, installAt - download))
        install.installBeganAt = began
        guard traffic.chance(model.injectedClickShare) else { return [install] }
        // Fired once the injector sees the install start, before the app first opens.
        let injectedAt = began + 1_000 + Int64(Double.random(in: 0..<1, using: &traffic) * Double(max(1, installAt - began - 1_000)))
        let webView =
            "Mozilla/5.0 (Linux; Android \(person.device.osVersion); \(person.device.model); wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/130.0.0.0 Mobile Safari/537.36"
        return [Action(offsetMilliseconds: injectedAt, address: address, kind: .injectedClick(person: person.index, userAgent: webView)), install]
    }

    /// Apple's relay egress of a region (US, CA in this population): a few addresses its
    /// strangers' Safari taps share (`relayList` lists them).
    static func relayEgress(region: String, model: PopulationModel, _ traffic: inout SeededGenerator) -> String {
        let block = relayRegions.firstIndex(of: region) ?? 0
        return "172.224.\(block).\(Int.random(in: 1...model.relayAddressesPerRegion, using: &traffic))"
    }

    static let relayRegions = ["US", "CA"]

    /// The simulated relay's egress list, in Apple's format.
    static var relayList: String {
        relayRegions.enumerated().map { "172.224.\($0.offset).0/24,\($0.element),,," }.joined(separator: "\n")
    }

    static func address(_ first: Int, _ rest: Int) -> String {
        "\(first).\((rest >> 16) & 255).\((rest >> 8) & 255).\(rest & 255)"
    }

    static func identifier(_ random: inout SeededGenerator) -> String {
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
        let hex = bytes.map { String(format: "%02X", $0) }.joined()
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.joined(separator: "-")
    }
}
