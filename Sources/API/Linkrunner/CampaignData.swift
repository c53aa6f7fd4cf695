import App
import Attribution
import HTTP
import StoreContracts

/// `campaign_data`, `attribution_source`, `deeplink` and `match` for an install
/// (linkrunner-api.md, "campaign_data"): string ids, ISO times without fractions.
enum CampaignData {
    /// The target of an outcome whose transaction read the link (no read here).
    static func target(of outcome: InstallOutcome, project: Project) -> LinkTarget? {
        outcome.link.map { LinkTarget(link: $0, template: outcome.template, project: project.settings) }
    }

    /// The campaign of a link (attributed install, or a deep link opened in the app).
    static func campaign(_ target: LinkTarget, installedAt: Timestamp?, clickedAt: Timestamp?) -> JSONValue {
        let link = target.link
        let utm = target.utm
        var fields: [String: JSONValue] = [
            "id": .string(link.id),
            "name": .string(utm.campaign ?? link.title ?? link.shortCode),
            "type": .string("INORGANIC"),
        ]
        if let source = utm.source?.uppercased(), ["META", "GOOGLE"].contains(source) { fields["ad_network"] = .string(source) }
        if let medium = utm.medium { fields["group_name"] = .string(medium) }
        if let content = utm.content { fields["asset_name"] = .string(content) }
        if let installedAt { fields["installed_at"] = .string(installedAt.iso8601) }
        if let clickedAt { fields["store_click_at"] = .string(clickedAt.iso8601) }
        return .object(fields)
    }

    /// Apple's answer for an install Apple Ads attributed (a read: off the event loops only).
    static func appleAds(of install: StoredInstall, services: Services) throws -> (answer: AppleAdsAnswer, names: AppleAdsNames)? {
        guard install.match.matchedFactors == [AppleAdsAttribution.factor],
            let answer = try services.app.appleAds.claim(installID: install.id)?.answer
        else { return nil }
        return (answer, try services.app.appleAds.names(of: answer, projectID: install.projectID))
    }

    /// An Apple Ads campaign (outbound.md, "What clients see"): ids as strings, times without
    /// fractional seconds (the iOS decoder rejects them).
    static func appleAdsCampaign(_ answer: AppleAdsAnswer, names: AppleAdsNames, installedAt: Timestamp) -> JSONValue {
        let campaign = answer.campaignID ?? "unknown"
        var fields: [String: JSONValue] = [
            "id": .string(campaign), "name": .string(names.name(.campaign, answer.campaignID) ?? "Apple Search Ads \(campaign)"),
            "type": .string("INORGANIC"),
            "ad_network": .string("APPLE_SEARCH_ADS"), "installed_at": .string(installedAt.iso8601),
        ]
        if let campaignID = answer.campaignID { fields["ad_network_campaign_id"] = .string(campaignID) }
        if let adGroup = answer.adGroupID {
            fields["group_name"] = .string(adGroup)
            fields["ad_set_id"] = .string(adGroup)
        }
        if let name = names.name(.adGroup, answer.adGroupID) { fields["ad_set_name"] = .string(name) }
        if let ad = answer.adID { fields["ad_creative_id"] = .string(ad) }
        if let claimedAt = answer.claimedAt { fields["store_click_at"] = .string(claimedAt.iso8601) }
        return .object(fields)
    }

    /// The attribution keys of `init` and `attribution-data`; `base` is the links' public URL, for
    /// the universal link of a link without an app scheme.
    /// - Parameter target: the attributed link, when the caller has it (an install's write
    ///   transaction returns it); else it is read (only off the event loops).
    /// - Parameter appleAds: Apple's answer, when Apple Ads attributed the install, with the names
    ///   fetched for it.
    static func attribution(
        of install: StoredInstall, target known: LinkTarget? = nil,
        appleAds: (answer: AppleAdsAnswer, names: AppleAdsNames)? = nil, project: Project,
        services: Services, base: String, includeMatch: Bool
    ) throws -> [String: JSONValue] {
        var data: [String: JSONValue] = [:]
        let target =
            install.match.attributed
            ? try known ?? install.match.linkID.flatMap { try services.app.links.target(linkID: $0, project: project) } : nil
        if install.match.attributed, let appleAds {
            data["attribution_source"] = .string("APPLE_SEARCH_ADS")
            data["campaign_data"] = appleAdsCampaign(appleAds.answer, names: appleAds.names, installedAt: install.createdAt)
            data["deeplink"] = .null
        } else if let target {
            data["attribution_source"] = .string("INORGANIC")
            data["campaign_data"] = campaign(target, installedAt: install.createdAt, clickedAt: install.match.clickedAt)
            data["deeplink"] = .string(target.deepLink(base: LinkURLs.base(of: target.link, otherwise: base)))
        } else if install.match.attributed {
            // Its link deleted since: still an attributed install, as the stats count it (it was
            // answered ORGANIC here while counted attributed there). No deep link is left to give.
            data["attribution_source"] = .string("INORGANIC")
            var fields: [String: JSONValue] = [
                "id": .string(install.match.linkID ?? "deleted"), "name": .string("Deleted link"), "type": .string("INORGANIC"),
                "installed_at": .string(install.createdAt.iso8601),
            ]
            if let clickedAt = install.match.clickedAt { fields["store_click_at"] = .string(clickedAt.iso8601) }
            data["campaign_data"] = .object(fields)
            data["deeplink"] = .null
        } else {
            // An organic install still gets a campaign_data object (a Flutter bridge casts it non-null).
            data["attribution_source"] = .string("ORGANIC")
            data["campaign_data"] = .object([
                "id": .string("organic"), "name": .string("Organic"), "type": .string("ORGANIC"),
                "installed_at": .string(install.createdAt.iso8601),
            ])
            data["deeplink"] = .null
        }
        if includeMatch {
            var match: [String: JSONValue] = [
                "type": .string(install.match.matchType.rawValue), "confidence": .number(install.match.confidence),
                "matched_factors": .array(install.match.matchedFactors.map(JSONValue.string)),
            ]
            match["click_id"] = install.match.clickID.map(JSONValue.string) ?? .null
            match["clicked_at"] = install.match.clickedAt.map { .string($0.iso8601) } ?? .null
            data["match"] = .object(match)
        }
        return data
    }
}
