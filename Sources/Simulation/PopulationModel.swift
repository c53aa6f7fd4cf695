/// The knobs of a simulated population. Defaults describe one paid campaign in one region over a
/// few days; each knob is a flag of `attributiond simulate` (docs/accuracy.md lists them).
public struct PopulationModel: Sendable, Equatable {
    /// People in the population.
    public var users = 2000
    /// Share of people who click the campaign's link.
    public var clickShare = 0.5
    /// Share of clickers who then install the app.
    public var installAfterClickShare = 0.6
    /// Share of people who never click yet install anyway (organic), on the same networks.
    public var organicInstallShare = 0.15
    /// Days over which the clicks (and organic installs) are spread.
    public var days = 3.0
    /// Median minutes from a click to the install (log-normal).
    public var delayMedianMinutes = 30.0
    /// Spread of that delay: σ of its natural log. 2.0 puts 90% between 1 minute and 14 hours,
    /// with a tail of days.
    public var delaySpread = 2.0
    /// Share of clicks made on cellular data rather than the home Wi-Fi.
    public var cellularShare = 0.4
    /// Share of installs made on the other network than the click (Wi-Fi ↔ cellular): a new IP.
    public var ipChangeShare = 0.2
    /// Share of people living in households of 2 to 5 behind one home address.
    public var householdShare = 0.35
    /// Share of people whose cellular address is a carrier NAT shared with others.
    public var carrierNATShare = 0.3
    /// People behind each carrier NAT address.
    public var carrierNATUsersPerAddress = 30
    /// Share of iPhone owners on the single most popular model and iOS version (indistinguishable).
    public var popularDeviceShare = 0.3
    /// Share of clickers who click again, in the same browser, before installing.
    public var repeatClickShare = 0.2
    /// Bot clicks (link previews, crawlers) per human click.
    public var botClicksPerClick = 0.05
    /// Share of people on iOS (the rest on Android).
    public var iosShare = 0.55
    /// Share of installs reported by the Linkrunner SDK (the rest by the LinkForty SDK).
    public var linkrunnerShare = 0.5
    /// Share of clicks whose interstitial page reports screen, time zone and languages.
    public var beaconShare = 0.85
    /// Share of Linkrunner Android installs whose Play install referrer carries the click id.
    public var playReferrerShare = 0.6
    /// Share of people with the app installed who later open a link inside it (an app-side open,
    /// on their home or cellular network): what must never attribute a neighbour's install.
    public var inAppOpenShare = 0.3
    /// Share of iPhone owners whose Safari taps go through iCloud Private Relay (a regional
    /// egress shared with strangers; the install comes from the phone's own network).
    public var privateRelayShare = 0.0
    /// Egress addresses each region's relay taps share.
    public var relayAddressesPerRegion = 8
    /// Share of Linkrunner Android installs an app on the phone fires a click for just before the
    /// install completes, after Play began it (click injection).
    public var injectedClickShare = 0.0
    /// Share of people a flooding source fires a burst of clicks for, from their home address
    /// (`floodBurstClicks` in ten minutes, no beacon), hoping one is the last before an install.
    public var floodingShare = 0.0
    public var floodBurstClicks = 40

    public init() {}

    /// Whether any traffic-quality knob is set: only then does the report carry their section
    /// and the server its relay list, so a population without them reports as it always did.
    public var hasTrafficQuality: Bool { privateRelayShare > 0 || injectedClickShare > 0 || floodingShare > 0 }

    /// A knob out of range, named as its flag.
    public func problems() -> [String] {
        var problems: [String] = []
        let shares: [(String, Double)] = [
            ("click-share", clickShare), ("install-after-click-share", installAfterClickShare),
            ("organic-install-share", organicInstallShare), ("cellular-share", cellularShare), ("ip-change-share", ipChangeShare),
            ("household-share", householdShare), ("carrier-nat-share", carrierNATShare), ("popular-device-share", popularDeviceShare),
            ("repeat-click-share", repeatClickShare), ("ios-share", iosShare), ("linkrunner-share", linkrunnerShare),
            ("beacon-share", beaconShare), ("play-referrer-share", playReferrerShare), ("in-app-open-share", inAppOpenShare),
            ("private-relay-share", privateRelayShare), ("injected-click-share", injectedClickShare), ("flooding-share", floodingShare),
        ]
        for (name, value) in shares where !(0...1).contains(value) { problems.append("--\(name) must be between 0 and 1") }
        if !(1...1_000_000).contains(users) { problems.append("--users must be between 1 and 1000000") }
        if !(days > 0 && days <= 60) { problems.append("--days must be more than 0 and at most 60") }
        if !(delayMedianMinutes > 0) { problems.append("--delay-median-minutes must be more than 0") }
        if !(delaySpread >= 0 && delaySpread <= 5) { problems.append("--delay-spread must be between 0 and 5") }
        if carrierNATUsersPerAddress < 1 { problems.append("--carrier-nat-users-per-address must be at least 1") }
        if !(1...250).contains(relayAddressesPerRegion) { problems.append("--relay-addresses-per-region must be between 1 and 250") }
        if !(1...1000).contains(floodBurstClicks) { problems.append("--flood-burst-clicks must be between 1 and 1000") }
        if !(botClicksPerClick >= 0 && botClicksPerClick <= 10) { problems.append("--bot-clicks-per-click must be between 0 and 10") }
        return problems
    }

    /// The knobs as (name, value), for reports.
    public var knobs: [(String, Double)] {
        [
            ("users", Double(users)), ("click_share", clickShare), ("install_after_click_share", installAfterClickShare),
            ("organic_install_share", organicInstallShare), ("days", days), ("delay_median_minutes", delayMedianMinutes),
            ("delay_spread", delaySpread), ("cellular_share", cellularShare), ("ip_change_share", ipChangeShare),
            ("household_share", householdShare), ("carrier_nat_share", carrierNATShare),
            ("carrier_nat_users_per_address", Double(carrierNATUsersPerAddress)), ("popular_device_share", popularDeviceShare),
            ("repeat_click_share", repeatClickShare), ("bot_clicks_per_click", botClicksPerClick), ("ios_share", iosShare),
            ("linkrunner_share", linkrunnerShare), ("beacon_share", beaconShare), ("play_referrer_share", playReferrerShare),
            ("in_app_open_share", inAppOpenShare),
        ]
            + (hasTrafficQuality
                ? [
                    ("private_relay_share", privateRelayShare), ("relay_addresses_per_region", Double(relayAddressesPerRegion)),
                    ("injected_click_share", injectedClickShare), ("flooding_share", floodingShare),
                    ("flood_burst_clicks", Double(floodBurstClicks)),
                ] : [])
    }
}
