import Testing

@testable import Attribution

/// The ad-platform rules as tables: which event a fact becomes, what consent lets out, when a claim wins.
@Suite struct AdPlatformRuleTests {
    static func event(_ name: String, revenue: Double? = nil) -> AdConversion {
        AdConversion(kind: .event, name: name, factID: "e1", revenue: revenue, occurredAt: 0)
    }

    @Test func factsBecomeEachPlatformsStandardEvents() {
        let install = AdConversion(kind: .install, name: "install", factID: "i1", occurredAt: 0)
        let payment = AdConversion(kind: .payment, name: "payment", factID: "p1", revenue: 5, currency: "USD", occurredAt: 0)
        let table: [(AdConversion, [AdPlatform: String?])] = [
            (install, [.google: "first_open", .meta: "MobileAppInstall", .tiktok: "InstallApp", .snap: "APP_INSTALL"]),
            (payment, [.google: "in_app_purchase", .meta: "Purchase", .tiktok: "Purchase", .snap: "PURCHASE"]),
            (Self.event("level_up", revenue: 1), [.google: "in_app_purchase", .meta: "Purchase", .tiktok: "Purchase", .snap: "PURCHASE"]),
            (Self.event("signup"), [.google: "sign_up", .meta: "CompleteRegistration", .tiktok: "CompleteRegistration", .snap: "SIGN_UP"]),
            (Self.event("add_to_cart", revenue: 3), [.google: "add_to_cart", .meta: "AddToCart", .tiktok: "AddToCart", .snap: "ADD_CART"]),
            (Self.event("tutorial"), [.google: "tutorial", .meta: "tutorial", .tiktok: "tutorial", .snap: String?.none]),
        ]
        for (fact, expected) in table {
            for (platform, name) in expected {
                #expect(AdEventMapping().eventName(for: fact, on: platform) == name, "\(fact.name) on \(platform)")
            }
        }
        let mapping = AdEventMapping(overrides: ["tutorial": "CUSTOM_EVENT_1", "install": nil])
        #expect(mapping.eventName(for: Self.event("tutorial"), on: .snap) == "CUSTOM_EVENT_1")
        #expect(mapping.eventName(for: install, on: .meta) == nil)
    }

    @Test func consentDecidesWhatLeaves() {
        let table: [(Consent, identifiers: Bool, advertisingID: Bool, googleRefuses: Bool, limited: Bool)] = [
            (Consent(), true, true, false, false),
            (Consent(eea: true), true, true, true, false),
            (Consent(eea: true, adUserData: true), true, true, false, false),
            (Consent(eea: false, adUserData: false), false, false, true, true),
            (Consent(adUserData: true, adPersonalization: false), true, true, false, true),
            (Consent(attStatus: .denied), true, false, false, false),
            (Consent(attStatus: .authorized), true, true, false, false),
        ]
        for row in table {
            #expect(row.0.allowsIdentifiers == row.identifiers, "\(row.0)")
            #expect(row.0.allowsAdvertisingID == row.advertisingID, "\(row.0)")
            #expect(row.0.googleRefuses == row.googleRefuses, "\(row.0)")
            #expect(row.0.limitedDataUse == row.limited, "\(row.0)")
        }
        // What an install told wins over the project's default, signal by signal.
        let resolved = Consent(adUserData: false).resolved(default: Consent(eea: true, adUserData: true, adPersonalization: true))
        #expect(resolved == Consent(eea: true, adUserData: false, adPersonalization: true))
        #expect(ATTStatus(wire: "AUTHORIZED") == .authorized && ATTStatus(wire: "notDetermined") == .notDetermined)
        #expect(ATTStatus(wire: "2") == .denied && ATTStatus(wire: "maybe") == nil)
    }

    @Test func aClaimTakesWhatOurMatchDoesNotHoldFirmly() {
        let installedAt = Timestamp(milliseconds: 10_000_000_000)
        let minutes = { (count: Int64) in Timestamp(milliseconds: installedAt.milliseconds - count * 60_000) }
        let google = { (engaged: Timestamp?) in AdPlatformClaim(source: .googleAds, interaction: "engagement", engagedAt: engaged) }
        let click = MatchResult(
            matchType: .deterministic, attributed: true, confidence: 1, matchedFactors: ["click_id"], clickID: "c", clickedAt: minutes(30))
        let probable = MatchResult(matchType: .probabilistic, attributed: true, confidence: 0.8, matchedFactors: ["ip"], clickID: "c")
        let apple = MatchResult(matchType: .deterministic, attributed: true, confidence: 1, matchedFactors: ["apple_ads"])
        let table: [(AdPlatformClaim, MatchResult, Bool)] = [
            (google(minutes(20)), .organic, true),
            (google(minutes(20)), probable, true),
            (google(minutes(20)), click, true),  // engaged after our click: the last touch
            (google(minutes(40)), click, false),
            (google(minutes(31 * 24 * 60)), .organic, false),  // past the click window
            (google(minutes(20)), apple, false),  // another claim holds it
            (AdPlatformClaim(source: .metaInstallReferrer), .organic, true),
            (AdPlatformClaim(source: .metaInstallReferrer), click, false),
            (AdPlatformClaim(source: .metaInstallReferrer, interaction: "view_through", engagedAt: minutes(2 * 24 * 60)), .organic, false),
        ]
        for (claim, match, wins) in table {
            #expect(AdPlatformPrecedence.claimWins(claim, over: match, installedAt: installedAt) == wins, "\(claim) over \(match)")
        }
    }

    @Test func thePlayReferrersGoogleClickIDsAreFound() {
        let ids = AdSignals.googleClickIDs(inReferrer: "utm_source=google-play&gclid=ABC_1&gbraid=0AA&x=1")
        #expect(ids.gclid == "ABC_1" && ids.gbraid == "0AA")
        #expect(AdSignals.googleClickIDs(inReferrer: "utm_source=x").gclid == nil)
    }
}
