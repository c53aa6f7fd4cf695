import Attribution
import StoreContracts
import Testing

@testable import App

/// `{country}`: the install's own country (a geo lookup or the SDK's locale), else its click's.
@Suite struct PostbackCountryTests {
    @Test func theInstallsCountryElseItsClicks() {
        let click = AttributedClick(clickID: "c1", linkID: "l1", utm: UTM(), networkClickID: nil, country: "DE")
        let now = Timestamp(milliseconds: 1_790_000_000_000)
        #expect(OutboundMessages.values(InstallFacts(installID: "i1", country: "JP", click: click), at: now)["country"] == "JP")
        #expect(OutboundMessages.values(InstallFacts(installID: "i1", country: nil, click: click), at: now)["country"] == "DE")
        #expect(OutboundMessages.values(InstallFacts(installID: "i1"), at: now)["country"] == nil)
    }
}
