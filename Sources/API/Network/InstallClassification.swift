import Attribution

extension InstallReport {
    /// The install's address class, the relay region whose taps it may match, and the Play
    /// referrer's times (docs/traffic-quality.md).
    mutating func classify(_ network: AddressLists.Network, lists: AddressLists, playReferrer: PlayReferrerTimes?) {
        signals.addressClass = network.addressClass
        signals.relayRegionKey = lists.relayRegionKey(platform: signals.platform, country: country)
        signals.playReferrer = playReferrer
    }
}
