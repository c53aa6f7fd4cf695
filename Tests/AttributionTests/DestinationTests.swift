import Testing

@testable import Attribution

private func target(
    link: Link = Link(id: "l", projectID: "p", shortCode: "abc", createdAt: Timestamp(milliseconds: 0)),
    template: LinkTemplate? = nil, project: ProjectSettings = ProjectSettings()
) -> LinkTarget {
    LinkTarget(link: link, template: template, project: project)
}

@Suite struct DestinationTests {
    @Test func storeAndWebURLsFallBackFromLinkToTemplateToProject() {
        var project = ProjectSettings()
        project.iosStoreURL = "https://apps.apple.com/app/id1"
        project.androidStoreURL = "https://play.google.com/store/apps/details?id=a"
        project.webURL = "https://project.example"
        let template = LinkTemplate(
            id: "t", projectID: "p", slug: "promo", name: "Promo", iosURL: "https://apps.apple.com/app/id2",
            createdAt: Timestamp(milliseconds: 0))
        var link = Link(id: "l", projectID: "p", shortCode: "abc", createdAt: Timestamp(milliseconds: 0))
        #expect(target(link: link, project: project).iosURL == "https://apps.apple.com/app/id1")
        #expect(target(link: link, template: template, project: project).iosURL == "https://apps.apple.com/app/id2")
        link.iosURL = "https://apps.apple.com/app/id3"
        #expect(target(link: link, template: template, project: project).iosURL == "https://apps.apple.com/app/id3")
        #expect(target(link: link, template: template, project: project).androidURL == "https://play.google.com/store/apps/details?id=a")
        #expect(target(link: link, project: project).webURL == "https://project.example")
    }

    /// One shape whatever the path's length: no `/` before the query of an app's own scheme
    /// (the first segment is its route), a root path only for a bare web host.
    @Test func deepLinksHaveOneShapeWhateverThePathsLength() {
        var link = Link(id: "l", projectID: "p", shortCode: "abc", createdAt: Timestamp(milliseconds: 0))
        link.appScheme = "shop"
        link.deepLinkParameters = ["offer": "50OFF"]
        for (path, expected) in [
            ("/offer", "shop://offer?offer=50OFF"), ("offer", "shop://offer?offer=50OFF"),
            ("/product/7", "shop://product/7?offer=50OFF"), (nil, "shop://?offer=50OFF"),
        ] {
            link.deepLinkPath = path
            #expect(target(link: link).appURL == expected, "\(path ?? "nil")")
        }
        #expect(URLQuery.appending([("a", "1")], to: "https://shop.example") == "https://shop.example/?a=1")
        #expect(URLQuery.appending([("a", "1")], to: "https://shop.example/p") == "https://shop.example/p?a=1")
    }

    @Test func responseDependsOnPlatform() {
        var link = Link(id: "l", projectID: "p", shortCode: "abc", createdAt: Timestamp(milliseconds: 0))
        link.iosURL = "https://apps.apple.com/app/id1"
        link.webURL = "https://example.com/landing"
        link.appScheme = "shop"
        link.deepLinkPath = "/product/42"
        link.deepLinkParameters = ["ref": "a b"]
        let t = target(link: link)
        #expect(
            t.response(for: .ios, clickID: "C", utm: UTM())
                == .interstitial(
                    destination: "https://apps.apple.com/app/id1",
                    appURL: "shop://product/42?ref=a%20b"))
        #expect(
            t.response(for: .android, clickID: "C", utm: UTM())
                == .interstitial(
                    destination: "https://example.com/landing",
                    appURL: "shop://product/42?ref=a%20b"))
        #expect(t.response(for: .desktop, clickID: "C", utm: UTM()) == .redirect("https://example.com/landing"))
        #expect(t.response(for: .bot, clickID: "C", utm: UTM()) == .preview)
        #expect(target().response(for: .ios, clickID: "C", utm: UTM()) == .noDestination)
    }

    @Test func utmClickIDAndPlayReferrerAreAppended() {
        let clickIDText = "9f1c2d3e-0000-4000-8000-000000000001"
        let linkID = "3b1f0c6e-8a0d-4c1e-9f5e-2d7a4b6c8e01"
        var link = Link(id: linkID, projectID: "p", shortCode: "abc", createdAt: Timestamp(milliseconds: 0))
        link.androidURL = "https://play.google.com/store/apps/details?id=com.shop"
        link.webURL = "https://example.com/a#top"
        link.appendClickID = true
        // Linkrunner clients hand back `click_id`; the referrer carries the link's own UTM values
        // (Play Console credits them), each encoded once inside the referrer, the whole once more.
        let utm = UTM(source: "mail", campaign: "summer sale")
        let clickID = clickIDText
        #expect(
            target(link: link).response(for: .android, clickID: clickID, utm: utm)
                == .interstitial(
                    destination:
                        "https://play.google.com/store/apps/details?id=com.shop&utm_source=mail&utm_campaign=summer%20sale&click_id=\(clickID)"
                        + "&referrer=utm_source%3Dmail%26utm_campaign%3Dsummer%2520sale%26click_id%3D\(clickID)",
                    appURL: nil))
        // WarpLink's Android SDK reads `utm_content` as the link's id when `utm_source` is warplink.
        var warpLink = ProjectSettings()
        warpLink.playReferrer = .warplink
        let referrer = "referrer=utm_source%3Dwarplink%26utm_content%3D\(linkID)%26click_id%3D\(clickIDText)"
        #expect(
            target(link: link, project: warpLink).response(for: .android, clickID: clickID, utm: utm)
                == .interstitial(
                    destination:
                        "https://play.google.com/store/apps/details?id=com.shop&utm_source=mail&utm_campaign=summer%20sale&click_id=\(clickID)&\(referrer)",
                    appURL: nil))
        #expect(
            target(link: link).response(for: .desktop, clickID: clickID, utm: utm)
                == .redirect("https://example.com/a?utm_source=mail&utm_campaign=summer%20sale&click_id=\(clickID)#top"))
        // Play always carries the referrer, even when the link does not ask for click ids.
        link.appendClickID = false
        guard case .interstitial(let play, _) = target(link: link, project: warpLink).response(for: .android, clickID: clickID, utm: UTM()) else {
            Issue.record("expected an interstitial")
            return
        }
        #expect(play == "https://play.google.com/store/apps/details?id=com.shop&\(referrer)")
    }

    @Test func queryUTMOverridesTheLinksAndTemplateUTMIsTheBase() {
        let template = LinkTemplate(
            id: "t", projectID: "p", slug: "s", name: "S", utm: ["source": "tmpl", "medium": "email"],
            createdAt: Timestamp(milliseconds: 0))
        var link = Link(id: "l", projectID: "p", shortCode: "abc", createdAt: Timestamp(milliseconds: 0))
        link.utm = UTM(source: "link")
        let merged = target(link: link, template: template).utm
        #expect(merged == UTM(source: "link", medium: "email"))
        #expect(merged.overridden(by: UTM(medium: "sms")) == UTM(source: "link", medium: "sms"))
    }

    @Test func availabilityFollowsActiveExpiryAndClickBudget() {
        var link = Link(id: "l", projectID: "p", shortCode: "abc", createdAt: Timestamp(milliseconds: 0))
        let now = Timestamp(milliseconds: 10_000)
        #expect(LinkAvailability.of(link, clicks: 0, now: now) == .available)
        link.expiresAt = Timestamp(milliseconds: 10_000)
        #expect(LinkAvailability.of(link, clicks: 0, now: now) == .expired)
        link.expiresAt = nil
        link.maxClicks = 3
        #expect(LinkAvailability.of(link, clicks: 2, now: now) == .available)
        #expect(LinkAvailability.of(link, clicks: 3, now: now) == .exhausted)
        link.active = false
        #expect(LinkAvailability.of(link, clicks: 0, now: now) == .inactive)
    }

    @Test func shortCodesAndBrowserSignalsValidate() {
        var generator = SystemRandomNumberGenerator()
        let code = ShortCode.generate(using: &generator)
        #expect(code.count == 8 && ShortCode.isValidCustom(code))
        #expect(!ShortCode.isValidCustom("ab"))
        #expect(!ShortCode.isValidCustom("a b c"))
        #expect(ShortCode.isValidCustom("summer-sale_2026"))
        let good = BrowserSignals(
            screenWidth: 390, screenHeight: 844, pixelRatio: 3, timezone: "Europe/Paris", javascriptOffset: -60, languages: ["fr-FR", "fr"])
        #expect(good.validate().isEmpty)
        #expect(good.utcOffsetMinutes == 60)
        let bad = BrowserSignals(screenWidth: -1, pixelRatio: 40, timezone: "Mars/Olympus", javascriptOffset: 5000, languages: ["<script>"])
        #expect(Set(bad.validate().map(\.key)) == ["sw", "dpr", "tz", "tzo", "langs[0]"])
    }
}

@Suite struct TimeOrderedIDTests {
    @Test func idsAreVersion7UUIDsThatSortByTime() {
        let earlier = TimeOrderedID.generate(at: Timestamp(milliseconds: 1_763_700_000_000))
        let later = TimeOrderedID.generate(at: Timestamp(milliseconds: 1_763_700_000_001))
        #expect(earlier < later)
        #expect(earlier.count == 36)
        let characters = Array(earlier)
        #expect(characters[14] == "7")  // version
        #expect("89ab".contains(characters[19]))  // variant
        #expect(earlier.hasPrefix("019aa4b6-4500-"))  // 48-bit milliseconds (0x019AA4B64500), big-endian
        let many = Set((0..<1000).map { _ in TimeOrderedID.generate(at: Timestamp(milliseconds: 5)) })
        #expect(many.count == 1000)
    }
}

@Suite struct CountryCodeTests {
    @Test func countriesComeFromCodesOrTheRegionOfALocale() {
        #expect(CountryCode.normalized("fr") == "FR" && CountryCode.normalized("FRA") == nil && CountryCode.normalized("1a") == nil)
        #expect(CountryCode.region(ofLocale: "fr_FR") == "FR")
        #expect(CountryCode.region(ofLocale: "en-US") == "US")
        #expect(CountryCode.region(ofLocale: "zh-Hant-TW") == "TW")
        #expect(CountryCode.region(ofLocale: "en_US@rg=gbzzzz") == "US")
        #expect(
            CountryCode.region(ofLocale: "de") == nil && CountryCode.region(ofLocale: "es-419") == nil && CountryCode.region(ofLocale: nil) == nil)
    }
}
