import Testing

@testable import Attribution

/// The cascade's fraud rules and shared-address rules, decided in the domain.
@Suite struct TrafficQualityRulesTests {
    let installTime = Timestamp(milliseconds: 1_764_000_000_000)

    func click(
        _ id: String, secondsBefore: Int64, ipKey: String, screen: ScreenSize? = ScreenSize(width: 1170, height: 2532),
        zone: String? = "Europe/Paris", addressClass: AddressClass? = nil
    ) -> InMemoryClicks.Stored {
        InMemoryClicks.Stored(
            click: CandidateClick(
                clickID: id, linkID: "link", createdAt: installTime.adding(seconds: -secondsBefore), platform: .ios, screen: screen,
                timezone: zone, addressClass: addressClass),
            ipKey: ipKey, advertisingID: id == "injected" ? "gaid-1" : nil)
    }

    func install(ipKey: String = "198.51.100.7", addressClass: AddressClass? = nil, play: PlayReferrerTimes? = nil, advertisingID: String? = nil)
        -> InstallSignals
    {
        var signals = InstallSignals(
            time: installTime, ipKey: ipKey, platform: .ios, screen: ScreenSize(width: 1170, height: 2532), timezone: "Europe/Paris",
            advertisingID: advertisingID)
        signals.addressClass = addressClass
        signals.playReferrer = play
        return signals
    }

    @Test func anInjectedDeterministicClickIsRefusedAndTheHonestTapOnTheNetworkWins() throws {
        let clicks = InMemoryClicks(stored: [
            click("honest", secondsBefore: 600, ipKey: "198.51.100.7"),
            click("injected", secondsBefore: 5, ipKey: "203.0.113.9"),
        ])
        let play = PlayReferrerTimes(installBegin: installTime.adding(seconds: -30))
        let result = try AttributionCascade.attribute(
            install(play: play, advertisingID: "gaid-1"), windowHoursLimit: nil, policy: MatchingPolicy(), clicks: clicks)
        #expect(result.clickID == "honest" && result.matchType == .probabilistic)
        #expect(result.rejectedReasons == [.clickInjection] && result.rejectedClickID == "injected")
        var off = MatchingPolicy()
        off.rules = .off
        let unscreened = try AttributionCascade.attribute(
            install(play: play, advertisingID: "gaid-1"), windowHoursLimit: nil, policy: off, clicks: clicks)
        #expect(unscreened.clickID == "injected" && unscreened.rejectedReasons.isEmpty)
    }

    @Test func aRefusedClickThatWouldNotHaveWonRejectsNothing() throws {
        let clicks = InMemoryClicks(stored: [
            click("best", secondsBefore: 600, ipKey: "198.51.100.7"),
            click("late", secondsBefore: 1, ipKey: "198.51.100.7", screen: ScreenSize(width: 1284, height: 2778)),
        ])
        let play = PlayReferrerTimes(installBegin: installTime.adding(seconds: -30))
        let result = try AttributionCascade.attribute(install(play: play), windowHoursLimit: nil, policy: MatchingPolicy(), clicks: clicks)
        #expect(result.clickID == "best" && result.rejectedReasons.isEmpty)
    }

    @Test func onlyWhenAskedACarrierNATMatchNeedsAScreenOrAZone() throws {
        let bare = InMemoryClicks(stored: [click("tap", secondsBefore: 600, ipKey: "100.64.0.9", screen: nil, zone: nil)])
        #expect(
            try AttributionCascade.attribute(
                install(ipKey: "100.64.0.9", addressClass: .carrierNAT), windowHoursLimit: nil, policy: MatchingPolicy(), clicks: bare
            )
            .attributed, "off by default")
        var strict = MatchingPolicy()
        strict.rules.carrierNATNeedsDeviceSignal = true
        let onNAT = try AttributionCascade.attribute(
            install(ipKey: "100.64.0.9", addressClass: .carrierNAT), windowHoursLimit: nil, policy: strict, clicks: bare)
        #expect(!onNAT.attributed)
        let atHome = try AttributionCascade.attribute(install(ipKey: "100.64.0.9"), windowHoursLimit: nil, policy: strict, clicks: bare)
        #expect(atHome.attributed && atHome.confidence == 0.65, "an ordinary network keeps the beacon-less cap")
        let beaconed = InMemoryClicks(stored: [click("tap", secondsBefore: 600, ipKey: "100.64.0.9", zone: nil)])
        #expect(
            try AttributionCascade.attribute(
                install(ipKey: "100.64.0.9", addressClass: .carrierNAT), windowHoursLimit: nil, policy: strict, clicks: beaconed
            ).attributed)
    }

    @Test func relayTapsScoreAtMostTheRelayConfidenceAndOnlyWithinTheRelayWindow() throws {
        var signals = install()
        signals.relayRegionKey = NetworkKey.relay(region: "FR")
        let recent = InMemoryClicks(stored: [click("relayed", secondsBefore: 120, ipKey: "relay:FR")])
        let matched = try AttributionCascade.attribute(signals, windowHoursLimit: nil, policy: MatchingPolicy(), clicks: recent)
        #expect(matched.clickID == "relayed" && matched.confidence == 0.6 && matched.matchedFactors.first == "region")
        let old = InMemoryClicks(stored: [click("relayed", secondsBefore: 301, ipKey: "relay:FR")])
        #expect(!(try AttributionCascade.attribute(signals, windowHoursLimit: nil, policy: MatchingPolicy(), clicks: old).attributed))
        // Three strangers' browsers with the same screen and zone in the region: no one of them is the install's.
        let strangers = InMemoryClicks(
            stored: (0..<3).map { index in
                var stored = click("relayed-\(index)", secondsBefore: 120 + Int64(index), ipKey: "relay:FR")
                stored.click.userAgent = "Safari \(index)"
                return stored
            })
        let crowded = try AttributionCascade.attribute(signals, windowHoursLimit: nil, policy: MatchingPolicy(), clicks: strangers)
        #expect(!crowded.attributed && crowded.confidence == 0.3, "0.6 less 0.15 for each other browser")
    }

    @Test func aBurstOfClicksFromOneAddressIsAFloodWholeAndTheTapBeforeItIsNot() throws {
        var stored = (0..<31).map { index in
            click("flood-\(index)", secondsBefore: 7_200 - Int64(index) * 20, ipKey: "198.51.100.7", screen: nil, zone: nil)
        }
        stored.append(click("honest", secondsBefore: 3 * 3_600, ipKey: "198.51.100.7"))
        let rules = TrafficQualityRules()
        let flooded = rules.flooded(stored.map(\.click))
        #expect(flooded.count == 31 && !flooded.contains("honest"), "every click of the burst, the first ones too")
        var thirty = rules
        thirty.floodClicksPerAddressHour = 31
        #expect(thirty.flooded(stored.map(\.click)).isEmpty, "31 within the hour is not more than 31")
        let result = try AttributionCascade.attribute(
            install(), windowHoursLimit: nil, policy: MatchingPolicy(), clicks: InMemoryClicks(stored: stored))
        #expect(result.clickID == "honest" && result.rejectedReasons == [.clickFlooding], "\(result)")
    }

    @Test func aShortClickToInstallIsFlaggedNotRejected() throws {
        let clicks = InMemoryClicks(stored: [click("quick", secondsBefore: 4, ipKey: "198.51.100.7")])
        let result = try AttributionCascade.attribute(install(), windowHoursLimit: nil, policy: MatchingPolicy(), clicks: clicks)
        #expect(result.clickID == "quick" && result.flags == [.shortClickToInstall] && result.rejectedReasons.isEmpty)
    }
}
