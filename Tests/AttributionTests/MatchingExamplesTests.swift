import JSON
import Testing

@testable import Attribution

#if canImport(Glibc)
    import Glibc
#endif

/// A click in an example: the store's view (ip key, bot flag, claimed) plus what the engine sees.
private struct ExampleClick: Sendable {
    var id: String
    var minutesBefore: Double
    var ipKey = "203.0.113.7"
    var platform: UserAgentInfo.Platform = .ios
    var osVersion = "17.4.1"
    var device: UserAgentInfo.DeviceClass = .iphone
    var screen: ScreenSize? = ScreenSize(width: 1170, height: 2532)
    var timezone: String? = "Europe/Paris"
    var languages = ["fr-FR", "fr"]
    var userAgent = "Safari iPhone A"
    var idfv: String?
    /// Recorded by the installed app (WarpLink or LinkForty resolve, Linkrunner handle-deeplink).
    var appOpen = false
    var isBot = false
    var claimed = false
}

private struct Example: CustomTestStringConvertible, Sendable {
    let number: Int
    let clicks: [ExampleClick]
    var install = InstallSignals(
        time: Timestamp(milliseconds: 1_763_700_000_000), ipKey: "203.0.113.7", platform: .ios,
        osVersion: "17.4", deviceClass: .iphone, screen: ScreenSize(width: 2532, height: 1170),
        timezone: "Europe/Paris", languages: ["fr_FR"])
    let expectedClick: String?
    let expectedType: MatchResult.MatchType
    let expectedConfidence: Double
    var expectedAttributed: Bool? = nil
    var expectedFactors: [String]? = nil
    var testDescription: String { "matching.md example #\(number)" }
}

/// A `ClickSource` over clicks held in memory, answering as the store does: unclaimed human clicks
/// of the project, newest first, each with its window.
struct InMemoryClicks: ClickSource {
    struct Stored {
        var click: CandidateClick
        var ipKey: String?
        var idfv: String?
        var advertisingID: String?
        var isBot = false
        var claimed = false
    }

    var stored: [Stored]

    private func usable(_ test: (Stored) -> Bool, limit: Int) -> [CandidateClick] {
        Array(
            stored.filter { !$0.isBot && !$0.claimed && test($0) }.map { stored -> CandidateClick in
                var click = stored.click
                click.ipKey = stored.ipKey
                click.idfv = stored.idfv
                click.advertisingID = stored.advertisingID
                return click
            }.sorted { $0.createdAt > $1.createdAt }.prefix(limit))
    }

    func click(referredBy clickID: String) throws -> CandidateClick? { usable({ $0.click.clickID == clickID }, limit: 1).first }
    func clicks(onLink linkID: String, limit: Int) throws -> [CandidateClick] { usable({ $0.click.linkID == linkID }, limit: limit) }
    func clicks(idfv: String, limit: Int) throws -> [CandidateClick] { usable({ $0.idfv == idfv }, limit: limit) }
    func clicks(advertisingID: String, limit: Int) throws -> [CandidateClick] { usable({ $0.advertisingID == advertisingID }, limit: limit) }
    func clicks(network ipKey: String, after: Timestamp, limit: Int) throws -> [CandidateClick] {
        usable({ $0.ipKey == ipKey && $0.click.createdAt > after }, limit: limit)
    }
}

/// A source that records the reads it was told of ahead and the reads it was then asked, in order.
final class RecordingClicks: ClickSource {
    let clicks: InMemoryClicks
    var prefetched: [[CandidateRead]] = []
    var made: [CandidateRead] = []

    init(_ clicks: InMemoryClicks) { self.clicks = clicks }

    func prefetch(_ reads: [CandidateRead]) throws { prefetched.append(reads) }
    func click(referredBy clickID: String) throws -> CandidateClick? {
        made.append(.referredBy(clickID: clickID))
        return try clicks.click(referredBy: clickID)
    }
    func clicks(onLink linkID: String, limit: Int) throws -> [CandidateClick] {
        made.append(.onLink(linkID: linkID, limit: limit))
        return try clicks.clicks(onLink: linkID, limit: limit)
    }
    func clicks(idfv: String, limit: Int) throws -> [CandidateClick] {
        made.append(.idfv(idfv, limit: limit))
        return try clicks.clicks(idfv: idfv, limit: limit)
    }
    func clicks(advertisingID: String, limit: Int) throws -> [CandidateClick] {
        made.append(.advertisingID(advertisingID, limit: limit))
        return try clicks.clicks(advertisingID: advertisingID, limit: limit)
    }
    func clicks(network ipKey: String, after: Timestamp, limit: Int) throws -> [CandidateClick] {
        made.append(.network(ipKey: ipKey, after: after, limit: limit))
        return try clicks.clicks(network: ipKey, after: after, limit: limit)
    }
}

/// The example's clicks in memory.
private func source(_ example: Example) -> InMemoryClicks {
    InMemoryClicks(
        stored: example.clicks.map { click in
            InMemoryClicks.Stored(
                click: CandidateClick(
                    clickID: click.id, linkID: "link-\(click.id)",
                    createdAt: Timestamp(milliseconds: example.install.time.milliseconds - Int64(click.minutesBefore * 60_000)),
                    platform: click.platform, osVersion: click.osVersion, deviceClass: click.device, screen: click.screen,
                    timezone: click.timezone, languages: click.languages, userAgent: click.userAgent,
                    isAppOpen: click.appOpen),
                ipKey: click.ipKey, idfv: click.idfv, isBot: click.isBot, claimed: click.claimed)
        })
}

/// The example's clicks in memory, run through the whole cascade (`AttributionCascade`).
private func match(_ example: Example, policy: MatchingPolicy = MatchingPolicy()) -> MatchResult {
    try! AttributionCascade.attribute(example.install, windowHoursLimit: nil, policy: policy, clicks: source(example))
}

private func ipv6Key(_ text: String) -> String {
    var address = in6_addr()
    inet_pton(AF_INET6, text, &address)
    return NetworkKey.key(addressBytes: withUnsafeBytes(of: &address) { Array($0) })
}

private let allFactors = ["ip", "platform", "os_version", "device", "screen", "timezone", "language"]

private let examples: [Example] = {
    var list: [Example] = []
    list.append(
        Example(number: 1, clicks: [], expectedClick: nil, expectedType: .none, expectedConfidence: 0, expectedAttributed: false, expectedFactors: [])
    )
    list.append(
        Example(
            number: 2, clicks: [ExampleClick(id: "A", minutesBefore: 10)], expectedClick: "A", expectedType: .probabilistic,
            expectedConfidence: 0.85, expectedAttributed: true, expectedFactors: allFactors))
    list.append(
        Example(
            number: 3, clicks: [ExampleClick(id: "A", minutesBefore: 60)], expectedClick: "A", expectedType: .probabilistic, expectedConfidence: 0.65)
    )
    list.append(
        Example(
            number: 4, clicks: [ExampleClick(id: "A", minutesBefore: 30 * 60)], expectedClick: nil, expectedType: .probabilistic,
            expectedConfidence: 0.40, expectedAttributed: false))
    list.append(
        Example(number: 5, clicks: [ExampleClick(id: "A", minutesBefore: 80 * 60)], expectedClick: nil, expectedType: .none, expectedConfidence: 0))
    var six = Example(number: 6, clicks: [ExampleClick(id: "A", minutesBefore: 10)], expectedClick: nil, expectedType: .none, expectedConfidence: 0)
    six.install.timezone = "America/New_York"
    list.append(six)
    var seven = Example(
        number: 7,
        clicks: [
            ExampleClick(id: "A", minutesBefore: 10, screen: ScreenSize(width: 1170, height: 2532), userAgent: "UA A"),
            ExampleClick(id: "B", minutesBefore: 5, screen: ScreenSize(width: 1284, height: 2778), userAgent: "UA B"),
        ],
        expectedClick: "B", expectedType: .probabilistic, expectedConfidence: 0.70)
    seven.install.screen = nil  // the install matches both
    list.append(seven)
    list.append(
        Example(
            number: 8,
            clicks: [
                ExampleClick(id: "A", minutesBefore: 50, userAgent: "UA A"), ExampleClick(id: "B", minutesBefore: 30, userAgent: "UA B"),
                ExampleClick(id: "C", minutesBefore: 20, userAgent: "UA C"),
            ],
            expectedClick: "C", expectedType: .probabilistic, expectedConfidence: 0.55))
    list.append(
        Example(
            number: 9,
            clicks: [
                ExampleClick(id: "A", minutesBefore: 30 * 60, userAgent: "UA A"), ExampleClick(id: "B", minutesBefore: 20 * 60, userAgent: "UA B"),
            ],
            expectedClick: "B", expectedType: .probabilistic, expectedConfidence: 0.50))
    list.append(
        Example(
            number: 10,
            clicks: [
                ExampleClick(id: "A", minutesBefore: 50 * 60, userAgent: "UA A"), ExampleClick(id: "B", minutesBefore: 40 * 60, userAgent: "UA B"),
            ],
            expectedClick: nil, expectedType: .probabilistic, expectedConfidence: 0.25, expectedAttributed: false))
    list.append(
        Example(
            number: 11, clicks: [ExampleClick(id: "A1", minutesBefore: 10), ExampleClick(id: "A2", minutesBefore: 5)],
            expectedClick: "A2", expectedType: .probabilistic, expectedConfidence: 0.85))
    list.append(
        Example(
            number: 12, clicks: [ExampleClick(id: "A", minutesBefore: 10, platform: .android, osVersion: "14", device: .phone)],
            expectedClick: nil, expectedType: .none, expectedConfidence: 0))
    var thirteen = Example(
        number: 13, clicks: [ExampleClick(id: "A", minutesBefore: 48 * 60, ipKey: "198.51.100.1", idfv: "X")],
        expectedClick: "A", expectedType: .deterministic, expectedConfidence: 1.0, expectedAttributed: true)
    thirteen.install.idfv = "X"
    list.append(thirteen)
    list.append(
        Example(
            number: 14, clicks: [ExampleClick(id: "A", minutesBefore: 10, claimed: true)], expectedClick: nil, expectedType: .none,
            expectedConfidence: 0))
    list.append(
        Example(
            number: 15, clicks: [ExampleClick(id: "A", minutesBefore: 10, isBot: true)], expectedClick: nil, expectedType: .none,
            expectedConfidence: 0))
    var sixteen = Example(
        number: 16, clicks: [ExampleClick(id: "A", minutesBefore: 10, ipKey: ipv6Key("2001:db8:1:2::5"))],
        expectedClick: "A", expectedType: .probabilistic, expectedConfidence: 0.85)
    sixteen.install.ipKey = ipv6Key("2001:db8:1:2::9")
    list.append(sixteen)
    // 18: phone A opens a link inside the app; phone C, never tapped, installs on the same network.
    var eighteen = Example(
        number: 18, clicks: [ExampleClick(id: "A", minutesBefore: 10, idfv: "A-IDFV", appOpen: true)],
        expectedClick: nil, expectedType: .none, expectedConfidence: 0)
    eighteen.install.idfv = "C-IDFV"
    list.append(eighteen)
    // 19: an app-side open without ids is no candidate for another device either, however alike.
    list.append(
        Example(
            number: 19, clicks: [ExampleClick(id: "A", minutesBefore: 10, appOpen: true)],
            expectedClick: nil, expectedType: .none, expectedConfidence: 0))
    // 20: a click that carries an IDFV never matches an install with another one.
    var twenty = Example(
        number: 20, clicks: [ExampleClick(id: "A", minutesBefore: 10, idfv: "X")],
        expectedClick: nil, expectedType: .none, expectedConfidence: 0)
    twenty.install.idfv = "Y"
    list.append(twenty)
    // 21: a click with no screen and no time zone (a plain redirect: User-Agent and
    // Accept-Language only) stays below the top band however recent.
    list.append(
        Example(
            number: 21, clicks: [ExampleClick(id: "A", minutesBefore: 10, screen: nil, timezone: nil)],
            expectedClick: "A", expectedType: .probabilistic, expectedConfidence: 0.65, expectedAttributed: true,
            expectedFactors: ["ip", "platform", "os_version", "device", "language"]))
    // 22: the device's own app-side open still finds its own install, by its IDFV.
    var twentyTwo = Example(
        number: 22, clicks: [ExampleClick(id: "A", minutesBefore: 10, idfv: "X", appOpen: true)],
        expectedClick: "A", expectedType: .deterministic, expectedConfidence: 1.0, expectedAttributed: true,
        expectedFactors: ["idfv"])
    twentyTwo.install.idfv = "X"
    list.append(twentyTwo)
    return list
}()

@Suite struct MatchingExamplesTests {
    @Test(arguments: examples)
    fileprivate func example(_ example: Example) {
        let result = match(example)
        #expect(result.clickID == example.expectedClick)
        #expect(result.matchType == example.expectedType)
        #expect(abs(result.confidence - example.expectedConfidence) < 1e-9, "confidence \(result.confidence)")
        #expect(result.attributed == (example.expectedAttributed ?? (example.expectedClick != nil)))
        if let factors = example.expectedFactors { #expect(result.matchedFactors == factors) }
        if result.matchType == .probabilistic { #expect(result.matchedFactors.first == "ip") }
    }

    /// A store whose reads are round trips makes them all at once (PostgreSQL's prefetch): every
    /// read the cascade makes was named ahead, in the same order, and when no deterministic click
    /// matched, exactly those.
    @Test(arguments: examples)
    fileprivate func theCascadeNamesItsReadsBeforeMakingThem(_ example: Example) throws {
        let recording = RecordingClicks(source(example))
        var install = example.install
        install.referrerLinkID = "link-ahead"
        install.advertisingID = "AD-1"
        let result = try AttributionCascade.attribute(install, windowHoursLimit: nil, policy: MatchingPolicy(), clicks: recording)
        #expect(recording.prefetched.count == 1)
        let named = recording.prefetched.first ?? []
        #expect(named.count >= 3 && Array(named.prefix(recording.made.count)) == recording.made)
        if result.matchType != .deterministic { #expect(recording.made == named) }
    }

    /// Example 17 (tier 0): the same install reported again is the stored one, whatever else changed.
    @Test func example17SameInstallIsFoundNotCreated() {
        let now = Timestamp(milliseconds: 1_763_700_000_000)
        let known = [
            KnownInstall(
                installID: "i1", installInstanceID: "lr-123", deviceID: nil, fingerprint: "fp", createdAt: now.adding(seconds: -30 * 86_400)),
            KnownInstall(installID: "i2", installInstanceID: nil, deviceID: "IDFA-9", fingerprint: "fp2", createdAt: now.adding(seconds: -3_600)),
        ]
        let policy = MatchingPolicy()
        #expect(MatchingEngine.sameInstall(InstallIdentity(installInstanceID: "lr-123"), among: known, now: now, policy: policy)?.installID == "i1")
        #expect(MatchingEngine.sameInstall(InstallIdentity(deviceID: "IDFA-9"), among: known, now: now, policy: policy)?.installID == "i2")
        #expect(MatchingEngine.sameInstall(InstallIdentity(fingerprint: "fp2"), among: known, now: now, policy: policy)?.installID == "i2")
        // The same fingerprint after more than 24 h is a new install (another phone behind the same NAT, say).
        #expect(MatchingEngine.sameInstall(InstallIdentity(fingerprint: "fp"), among: known, now: now, policy: policy) == nil)
        #expect(MatchingEngine.sameInstall(InstallIdentity(installInstanceID: "other"), among: known, now: now, policy: policy) == nil)
        // A fingerprint never merges two devices whose ids differ.
        #expect(
            MatchingEngine.sameInstall(InstallIdentity(deviceID: "IDFA-OTHER", fingerprint: "fp2"), among: known, now: now, policy: policy) == nil)
    }

    /// A browser's beacon-less redirect just after its full-signal tap is the same person: the tap's
    /// better score wins, and the pair is one candidate, not two.
    @Test func aBeaconLessRedirectAfterAFullTapNeitherWinsNorCountsAsAnotherPerson() throws {
        let now = Timestamp(milliseconds: 1_763_700_000_000)
        let agent = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148"
        let tapAt = now.adding(seconds: -600)
        let tap = CandidateClick(
            clickID: "tap", linkID: "l", createdAt: tapAt, platform: .ios, osVersion: "17.4", screen: ScreenSize(width: 1179, height: 2556),
            timezone: "Europe/Paris", languages: ["fr-FR"], userAgent: agent)
        let redirect = CandidateClick(
            clickID: "redirect", linkID: "l", createdAt: Timestamp(milliseconds: tapAt.milliseconds + 300), platform: .ios, osVersion: "17.4",
            languages: ["fr-FR"], userAgent: agent)
        var install = InstallSignals(time: now, ipKey: "198.51.100.1", platform: .ios)
        install.osVersion = "17.4.1"
        install.screen = ScreenSize(width: 1179, height: 2556)
        install.timezone = "Europe/Paris"
        install.languages = ["fr-FR"]
        let policy = MatchingPolicy()
        let result = MatchingEngine.probabilistic(install: install, candidates: [tap, redirect], policy: policy)
        #expect(result.clickID == "tap" && result.confidence == 0.85, "\(result)")
        #expect(MatchingEngine.candidateGroups([tap, redirect]) == 1)
        // Alone, the redirect scores what a beacon-less click can.
        #expect(
            MatchingEngine.probabilistic(install: install, candidates: [redirect], policy: policy).confidence == policy.confidenceWithoutDeviceSignals
        )
    }

    /// The cascade's order and windows, beyond the numbered examples.
    @Test func theCascadePrefersTheReferrerThenTheIDFVAndNarrowsWindows() throws {
        let now = Timestamp(milliseconds: 1_763_700_000_000)
        func click(_ id: String, hoursBefore: Double, windowHours: Int = 168) -> CandidateClick {
            CandidateClick(
                clickID: id, linkID: "l-\(id)", createdAt: now.adding(seconds: Int64(-hoursBefore * 3600)), platform: .android,
                windowHours: windowHours)
        }
        let source = InMemoryClicks(stored: [
            .init(click: click("R", hoursBefore: 50), ipKey: "198.51.100.1"),
            .init(click: click("V", hoursBefore: 2), ipKey: "198.51.100.1", idfv: "V-1"),
            .init(click: click("N", hoursBefore: 0.5), ipKey: "203.0.113.9"),
        ])
        var install = InstallSignals(time: now, ipKey: "203.0.113.9", platform: .android)
        install.referrerClickID = "R"
        install.idfv = "V-1"
        let policy = MatchingPolicy()
        // The referrer wins over the IDFV and the same network.
        #expect(try AttributionCascade.attribute(install, windowHoursLimit: nil, policy: policy, clicks: source).clickID == "R")
        // An install's own window of 24 h puts the referrer's click (50 h old) out: the IDFV's is next.
        let narrowed = try AttributionCascade.attribute(install, windowHoursLimit: 24, policy: policy, clicks: source)
        #expect(narrowed.clickID == "V" && narrowed.matchType == .deterministic && narrowed.matchedFactors == ["idfv"])
        // 1 h puts both out: the probabilistic tier takes the same network's click, at 0.65 at
        // most: it agrees on IP and platform alone (no screen, no time zone).
        let network = try AttributionCascade.attribute(install, windowHoursLimit: 1, policy: policy, clicks: source)
        #expect(network.clickID == "N" && network.matchType == .probabilistic && network.confidence == 0.65)
        // A link's own window counts too: a 1-hour link's click made 2 hours ago does not attribute.
        let shortLink = InMemoryClicks(stored: [.init(click: click("S", hoursBefore: 2, windowHours: 1), ipKey: "203.0.113.9")])
        #expect(
            try AttributionCascade.attribute(
                InstallSignals(time: now, ipKey: "203.0.113.9", platform: .android),
                windowHoursLimit: nil, policy: policy, clicks: shortLink) == .organic)
    }

    /// WarpLink's Play Install Referrer names the link, not the click: the link is certain, and
    /// among its clicks the device's own network and signals choose.
    @Test func aReferredLinkAttributesDeterministicallyToTheLikeliestOfItsClicks() throws {
        let now = Timestamp(milliseconds: 1_763_700_000_000)
        func click(_ id: String, link: String, minutesBefore: Int64, platform: UserAgentInfo.Platform = .android) -> CandidateClick {
            CandidateClick(clickID: id, linkID: link, createdAt: now.adding(seconds: -minutesBefore * 60), platform: platform)
        }
        let source = InMemoryClicks(stored: [
            .init(click: click("mine", link: "L", minutesBefore: 30), ipKey: "198.51.100.7"),
            .init(click: click("newer-elsewhere", link: "L", minutesBefore: 5), ipKey: "203.0.113.1"),
            .init(click: click("newest-iphone", link: "L", minutesBefore: 1, platform: .ios), ipKey: "203.0.113.2"),
            .init(click: click("other-link", link: "M", minutesBefore: 2), ipKey: "198.51.100.7"),
        ])
        var install = InstallSignals(time: now, ipKey: "198.51.100.7", platform: .android)
        install.referrerLinkID = "L"
        let policy = MatchingPolicy()
        let sameNetwork = try AttributionCascade.attribute(install, windowHoursLimit: nil, policy: policy, clicks: source)
        #expect(sameNetwork.clickID == "mine" && sameNetwork.linkID == "L" && sameNetwork.matchType == .deterministic)
        #expect(sameNetwork.matchedFactors == ["install_referrer"] && sameNetwork.confidence == 1)
        // From another network (the install began on Wi-Fi, the app opened on mobile data): the
        // newest click whose signals agree (an Android one), never another link's.
        install.ipKey = "192.0.2.99"
        #expect(try AttributionCascade.attribute(install, windowHoursLimit: nil, policy: policy, clicks: source).clickID == "newer-elsewhere")
        // A link with no click left falls through to the other tiers.
        install.referrerLinkID = "unclicked"
        install.ipKey = "198.51.100.7"
        let fallback = try AttributionCascade.attribute(install, windowHoursLimit: nil, policy: policy, clicks: source)
        #expect(fallback.matchType == .probabilistic && fallback.clickID == "other-link")
    }

    /// An SDK that sends its screen in points without a scale (WarpLink) is compared with the
    /// points of the click's page, not with its pixels.
    @Test func screensInPointsAreComparedWithTheClicksPoints() {
        let now = Timestamp(milliseconds: 1_763_700_000_000)
        let click = CandidateClick(
            clickID: "C", linkID: "L", createdAt: now.adding(seconds: -600), platform: .ios,
            screen: ScreenSize(width: 1170, height: 2532), screenPoints: ScreenSize(width: 390, height: 844))
        var install = InstallSignals(time: now, ipKey: "198.51.100.7", platform: .ios, screenPoints: ScreenSize(width: 844, height: 390))
        #expect(MatchingEngine.agreement(install: install, click: click) == ["ip", "platform", "screen"])
        install.screenPoints = ScreenSize(width: 430, height: 932)
        #expect(MatchingEngine.agreement(install: install, click: click) == nil)
        // Pixels, when the install has them, are what is compared.
        install.screen = ScreenSize(width: 1170, height: 2532)
        #expect(MatchingEngine.agreement(install: install, click: click) == ["ip", "platform", "screen"])
    }

    /// One device's IDFV makes the install another SDK family reported this one, unless both
    /// carry install instance ids (Linkrunner's reinstalls stay new installs).
    @Test func anIDFVFindsAnotherFamilysInstallButNotAnotherInstance() {
        let now = Timestamp(milliseconds: 1_763_700_000_000)
        let policy = MatchingPolicy()
        let linkrunner = KnownInstall(
            installID: "lr", installInstanceID: "IID-1", deviceID: nil, fingerprint: nil, idfv: "V",
            createdAt: now.adding(seconds: -3_600))
        let warplink = KnownInstall(
            installID: "wl", installInstanceID: nil, deviceID: "V", fingerprint: "fp", idfv: "V",
            createdAt: now.adding(seconds: -60))
        #expect(MatchingEngine.sameInstall(InstallIdentity(idfv: "V"), among: [linkrunner], now: now, policy: policy)?.installID == "lr")
        #expect(
            MatchingEngine.sameInstall(InstallIdentity(installInstanceID: "IID-2", idfv: "V"), among: [linkrunner], now: now, policy: policy) == nil)
        #expect(
            MatchingEngine.sameInstall(
                InstallIdentity(installInstanceID: "IID-2", idfv: "V"), among: [linkrunner, warplink],
                now: now, policy: policy)?.installID == "wl")
        #expect(MatchingEngine.sameInstall(InstallIdentity(idfv: "W"), among: [linkrunner, warplink], now: now, policy: policy) == nil)
    }

    @Test func minConfidenceAndDecayComeFromThePolicy() {
        var policy = MatchingPolicy()
        policy.minConfidence = 0.9
        let result = match(examples[1], policy: policy)
        #expect(result.confidence == 0.85 && !result.attributed && result.clickID == nil)
        policy = MatchingPolicy()
        policy.candidatePenalty = 0.5
        #expect(match(examples[7], policy: policy).confidence == 0)  // floor at 0, never negative
    }
}

@Suite struct NormalizationTests {
    @Test func trimmingRemovesSpacesAndTabsButKeepsLineBreaksAndInnerSpace() {
        #expect(" \t ABC-1 \u{00A0}".trimmingWhitespace() == "ABC-1")
        #expect("a b".trimmingWhitespace() == "a b")
        #expect(" \t ".trimmingWhitespace() == "")
        #expect("".trimmingWhitespace() == "")
        #expect("\nx\n".trimmingWhitespace() == "\nx\n")
        #expect("  é ".trimmingWhitespace() == "é")
        // Values whose end bytes are not blank take the fast path and come back unchanged.
        #expect("IDFV-1".trimmingWhitespace() == "IDFV-1")
        #expect("é\u{00A0}".trimmingWhitespace() == "é")
        #expect("x\u{2003}".trimmingWhitespace() == "x")
        #expect("a\t".trimmingWhitespace() == "a")
        #expect("Europe/Paris"[...].trimmingWhitespace() == "Europe/Paris")
    }

    @Test func timeZoneNamesAreCheckedAgainstTheSystemDatabaseAndRemembered() {
        for _ in 0..<2 {  // the second pass answers from the cache
            #expect(TimeZoneNames.isValid("Europe/Paris"))
            #expect(TimeZoneNames.isValid("UTC"))
            #expect(!TimeZoneNames.isValid("Mars/Olympus_Mons"))
            #expect(!TimeZoneNames.isValid("Europe/Paris "))
            #expect(!TimeZoneNames.isValid("Europe\nParis"))
            #expect(!TimeZoneNames.isValid(""))
            #expect(!TimeZoneNames.isValid(String(repeating: "A", count: 65)))
        }
    }

    @Test func versionsCompareOnMajorMinor() {
        #expect(Normalize.majorMinor("17.4.1") == "17.4")
        #expect(Normalize.majorMinor("17_4") == "17.4")
        #expect(Normalize.majorMinor("14") == "14.0")
        #expect(Normalize.majorMinor("abc") == nil)
    }

    @Test func languagesCompareOnThePrimarySubtag() {
        #expect(Normalize.primaryLanguage("en-GB") == "en")
        #expect(Normalize.primaryLanguage("en_US") == "en")
        #expect(Normalize.primaryLanguage("en_US@rg=gbzzzz") == "en")
        #expect(Normalize.primaryLanguage("ZH-Hant-TW") == "zh")
        #expect(Normalize.primaryLanguage("*") == nil)
    }

    @Test func screensComparePixelsInEitherOrientation() {
        let points = ScreenSize(points: 390, 844, scale: 3)
        #expect(points == ScreenSize(width: 1170, height: 2532))
        #expect(points!.matches(ScreenSize(width: 2532, height: 1170)))
        #expect(!points!.matches(ScreenSize(width: 1284, height: 2778)))
        #expect(ScreenSize(points: 411.4, 867.4, scale: 2.625)!.matches(ScreenSize(width: 1080, height: 2277)))
    }

    @Test func timezonesCompareByIdOrByOffset() {
        let time = Timestamp(milliseconds: 1_763_700_000_000)  // November: Paris is UTC+1
        #expect(Normalize.utcOffset(of: "Europe/Paris", at: time) == 60)
        let install = InstallSignals(time: time, utcOffsetMinutes: 60)
        #expect(
            MatchingEngine.timezoneAgreement(
                install: install, click: CandidateClick(clickID: "c", linkID: nil, createdAt: time, timezone: "Europe/Paris")) == true)
        #expect(
            MatchingEngine.timezoneAgreement(
                install: install, click: CandidateClick(clickID: "c", linkID: nil, createdAt: time, utcOffsetMinutes: -300)) == false)
        #expect(
            MatchingEngine.timezoneAgreement(install: InstallSignals(time: time), click: CandidateClick(clickID: "c", linkID: nil, createdAt: time))
                == nil)
    }

    @Test func networkKeysKeepIPv4AndCutIPv6ToTheSlash64() {
        #expect(NetworkKey.key(addressBytes: [203, 0, 113, 7]) == "203.0.113.7")
        #expect(ipv6Key("2001:db8:1:2::5") == ipv6Key("2001:db8:1:2:ffff::9"))
        #expect(ipv6Key("2001:db8:1:2::5") != ipv6Key("2001:db8:1:3::5"))
        #expect(ipv6Key("::ffff:198.51.100.4") == "198.51.100.4")
    }
}

@Suite struct ScreenSizeTests {
    @Test func pointsBecomePixelsAndAbsurdSizesAreNoScreen() {
        #expect(ScreenSize(points: 390, 844, scale: 3) == ScreenSize(width: 1170, height: 2532))
        #expect(ScreenSize(points: 1e300, 844, scale: 3) == nil)
        #expect(ScreenSize(points: 390, .infinity, scale: 1) == nil)
        #expect(ScreenSize(points: 390, 844, scale: 0) == nil)
    }

    /// An install with no candidate stores its explanation as a direct string: the same bytes the
    /// value tree serializes to.
    @Test func theDirectTextOfAnEmptyExplanationIsItsSerialization() {
        for (decided, minimum) in [("none", 0.3), ("none", 0.05), ("none", 1.0)] {
            var explanation = MatchExplanation(decidedBy: decided, minConfidence: minimum, considered: 0, candidates: [])
            #expect(explanation.text == String(decoding: explanation.json.serialized(), as: UTF8.self))
            // An install from a carrier NAT address tells its class, written directly too.
            explanation.installAddressClass = "carrier_nat"
            #expect(explanation.text == String(decoding: explanation.json.serialized(), as: UTF8.self))
            #expect(explanation.text.contains(#""install_address_class":"carrier_nat""#))
        }
    }
}
