import App
import Attribution
import Foundation
@_spi(StoreInternals) import Store
import StoreContracts
import TestSupport
import Testing

@testable import API

/// Ad-platform connections made, shown masked, tested and removed through the dashboard's forms.
@Suite struct DashboardAdPlatformTests {
    @Test func aConnectionIsSavedShownMaskedAndRemovedThroughForms() throws {
        let app = try TestApp(allowPrivateOutbound: true)
        let (projectID, _, _) = try app.projectWithLink()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let page = "/projects/\(projectID)/ad-platforms"
        let empty = try browser.get(page)
        #expect(empty.status == 200 && empty.bodyText.contains("Google Ads") && empty.bodyText.contains("not connected"))

        let refused = try browser.submit(from: page, to: page + "/meta", [("dataset_id", "123")])
        #expect(refused.status == 422 && refused.bodyText.contains("access_token: is required"), "\(refused.bodyText)")
        let saved = try browser.submit(from: page, to: page + "/meta", [("dataset_id", "123"), ("access_token", "EAAsecret-token-4321")])
        #expect(saved.status == 200 && saved.bodyText.contains("Meta connected."), "\(saved.bodyText)")
        #expect(saved.bodyText.contains("••••4321") && !saved.bodyText.contains("EAAsecret"))
        // Saved again with the credential left empty: it stays.
        _ = try browser.submit(from: page, to: page + "/meta", [("dataset_id", "456"), ("access_token", "")])
        let stored = try app.services.app.adPlatforms.connection(projectID: projectID, platform: .meta)
        #expect(stored.secrets["access_token"] == "EAAsecret-token-4321" && stored.settings["dataset_id"] == "456")

        let tested = try browser.submit(from: page, to: page + "/meta/test", [])
        #expect(tested.status == 200 && tested.bodyText.contains("test event is queued"))
        #expect(
            try app.count("SELECT count(*) FROM outbox_new WHERE kind = 'ad_platform'")
                + app.count("SELECT count(*) FROM outbox_jobs WHERE kind = 'ad_platform'") == 1)
        let removed = try browser.submit(from: page, to: page + "/meta/delete", [])
        #expect(removed.bodyText.contains("Meta disconnected"))
        #expect(try app.count("SELECT count(*) FROM ad_platform_connections") == 0)
        #expect(try browser.submit(from: page, to: page + "/myspace", []).status == 404)
    }
}
