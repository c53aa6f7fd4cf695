import App
import Attribution
import Foundation
import HTTP
import StoreContracts

/// `handle-deeplink`: the app was opened by a URL. When it is one of our short links (on any host
/// this server answers for, with or without template slug), the open is recorded as an app-side
/// click carrying the device's identifiers — what later makes an idfv match deterministic — and
/// the link's deep link comes back.
enum DeeplinkHandling {
    static func handle(_ call: LinkrunnerRoutes.Call) throws -> [String: JSONValue] {
        let url = try call.body.requiredString("deeplink_url", maxLength: 4096)
        // SKAN values come with the answer when the install is known (all three keys or none).
        let skan: SKANValues? = try (try? call.install()).flatMap { install in
            try call.services.app.activity.conversionValues(installID: install.id, project: call.project)
        }
        // The link the app was opened with, on the domain its URL names when that is a project's.
        let openedOn = URLComponents(string: url)?.host.flatMap { RequestAuthority.hostName(of: $0) }
        guard let (code, slug) = shortLinkPath(url),
            let (_, target) = try AppOpenLinks.find(code: code, slug: slug, project: call.project, openedOn: [openedOn], services: call.services),
            AppOpenLinks.refusal(target, now: call.now) == nil
        else {
            var data: [String: JSONValue] = ["deeplink": .string(url), "is_linkrunner": .bool(false)]
            SKANFields.add(skan, to: &data)
            return data
        }
        let services = call.services
        let device = try call.deviceData()
        let now = call.now
        let platform = device.platform(declared: try call.body.string("platform"))
        let clickID = ClickRecorder(services: services).record(at: now, for: call.request) { clickID, ip, ipKey in
            Click(
                clickID: clickID, projectID: call.project.id, linkID: target.link.id, source: .app, createdAt: now, ip: ip,
                ipKey: ipKey, userAgent: device.userAgent, query: [:], utm: target.utm, platform: platform,
                osVersion: device.systemVersion, deviceClass: Normalize.deviceClass(model: device.model, platform: platform),
                screenWidth: device.screenPoints?.width, screenHeight: device.screenPoints?.height, pixelRatio: device.screenPoints?.scale,
                timezone: device.timezone, utcOffsetMinutes: device.utcOffsetMinutes,
                languages: [device.locale, device.language].compactMap { $0 }, idfv: device.idfv, advertisingID: device.advertisingID,
                networkClickID: NetworkClickID.find(in: queryItems(of: url), extraParameters: target.project.clickIDParameters))
        }
        var data: [String: JSONValue] = [
            "deeplink": .string(
                target.deepLink(base: LinkURLs.base(of: target.link, otherwise: LinkURLs.base(for: call.request, services: services)))),
            "is_linkrunner": .bool(true),
            "campaign_data": CampaignData.campaign(target, installedAt: nil, clickedAt: now),
            "click_id": .string(clickID),
        ]
        SKANFields.add(skan, to: &data)
        return data
    }

    /// The query of the URL the app was opened with (a network's click id may ride on it).
    static func queryItems(of url: String) -> [(name: String, value: String)] {
        (URLComponents(string: url)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }
    }

    /// `https://host/{code}` or `https://host/{slug}/{code}` → (code, slug).
    static func shortLinkPath(_ url: String) -> (code: String, slug: String?)? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "https" || scheme == "http", components.host != nil
        else { return nil }
        let segments = components.path.split(separator: "/").map(String.init)
        switch segments.count {
        case 1: return (segments[0], nil)
        case 2: return (segments[1], segments[0])
        default: return nil
        }
    }
}
