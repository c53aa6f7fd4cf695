import Attribution
import StoreContracts
import Testing

@testable import App

/// An ad-platform job's payload reads back as it was written, and a request as shown hides credentials.
@Suite struct AdPlatformJobTests {
    @Test func aJobsPayloadReadsBackWhole() throws {
        let jobs = [
            AdPlatformJob(
                platform: .meta,
                conversion: AdConversion(
                    kind: .event, name: "purchase \"x\"", factID: "e1", revenue: 9.99, currency: "EUR", occurredAt: 1_764_662_400_123),
                installID: "i1"),
            AdPlatformJob(platform: .tiktok, conversion: AdConversion(kind: .install, name: "install", factID: "i2", occurredAt: 1), test: true),
            AdPlatformJob(
                platform: .google, conversion: AdConversion(kind: .install, name: "install", factID: "i3", occurredAt: 2), installID: "i3",
                crossNetwork: .init(adEventID: "Q2x", attributed: false)),
        ]
        for job in jobs {
            let message = job.message(projectID: "p", at: Timestamp(milliseconds: 5))
            #expect(AdPlatformJob.read(message) == job, "\(message.payload)")
            #expect(message.kind == AdPlatform.jobKind && message.targetID == job.platform.rawValue)
        }
        // A job for every platform names none: each job made from it takes its platform from its target.
        let every = AdPlatformJob.everyPlatform(jobs[0].conversion, installID: "i1", projectID: "p", at: Timestamp(milliseconds: 5))
        #expect(every.targetID == nil && !every.payload.contains("platform"))
        var made = every
        made.targetID = "snap"
        #expect(AdPlatformJob.read(made) == AdPlatformJob(platform: .snap, conversion: jobs[0].conversion, installID: "i1"))
        #expect(jobs[2].message(projectID: "p", at: Timestamp(milliseconds: 0)).eventID == "cross_network:i3")
        #expect(jobs[0].message(projectID: "p", at: Timestamp(milliseconds: 0)).eventID == "event:e1")
    }

    @Test func aRequestAsShownHasNoCredentials() {
        let request = OutboundRequest(
            method: "POST", url: "https://x.example/v21.0/1/events?access_token=SECRET&dev_token=SECRET2&link_id=L",
            headers: [("Access-Token", "SECRET3"), ("user-agent", "ua")], body: Array("{}".utf8))
        let shown = AdPlatformDelivery.shown(request)
        #expect(!shown.contains("SECRET") && shown.contains("access_token=[redacted]") && shown.contains("link_id=L"))
        #expect(shown.contains("Access-Token: [redacted]") && shown.hasSuffix("\n\n{}"))
    }

    @Test func answersWithTimesBeyondAnyClockAreReadWithoutTrapping() {
        let answer = #"{"attributed":true,"ad_events":[{"ad_event_id":"x","timestamp":1e300,"campaign_id":1e300}]}"#
        let claim = GoogleAdsRequest.claim(fromAnswer: answer)?.claim
        #expect(claim?.engagedAt == nil && claim?.adEventID == "x")
    }
}
