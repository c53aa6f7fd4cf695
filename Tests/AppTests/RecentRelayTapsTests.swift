import Attribution
import Testing

@testable import App

/// The hint that lets an install skip reading its region's relay taps: only when none came.
@Suite struct RecentRelayTapsTests {
    func tap(_ project: String, _ key: String, at milliseconds: Int64) -> Click {
        Click(
            clickID: "c-\(milliseconds)", projectID: project, linkID: nil, source: .link, createdAt: Timestamp(milliseconds: milliseconds), ipKey: key
        )
    }

    @Test func anInstallReadsOnlyWhereARelayTapCameWithinTheWindow() {
        let taps = RecentRelayTaps()
        let time = Timestamp(milliseconds: 10_000_000)
        #expect(!taps.mayHaveTaps(projectID: "p", regionKey: "relay:FR", before: time, windowSeconds: 300))
        taps.noted(tap("p", "relay:FR", at: 9_800_000))
        taps.noted(tap("p", "198.51.100.7", at: 9_900_000))
        #expect(taps.mayHaveTaps(projectID: "p", regionKey: "relay:FR", before: time, windowSeconds: 300))
        #expect(!taps.mayHaveTaps(projectID: "p", regionKey: "relay:FR", before: Timestamp(milliseconds: 10_100_001), windowSeconds: 300))
        #expect(!taps.mayHaveTaps(projectID: "q", regionKey: "relay:FR", before: time, windowSeconds: 300), "another project's tap")
        #expect(!taps.mayHaveTaps(projectID: "p", regionKey: "relay:US", before: time, windowSeconds: 300), "another region's")
        // An older tap noted later does not move the latest back.
        taps.noted(tap("p", "relay:FR", at: 1_000))
        #expect(taps.mayHaveTaps(projectID: "p", regionKey: "relay:FR", before: time, windowSeconds: 300))
    }

    @Test func theTapsStoredBeforeTheNodeStartedCountAndUnknownOnesMeanRead() {
        let taps = RecentRelayTaps(stored: [(projectID: "p", regionKey: "relay:FR", at: 9_900_000)])
        #expect(taps.mayHaveTaps(projectID: "p", regionKey: "relay:FR", before: Timestamp(milliseconds: 10_000_000), windowSeconds: 300))
        #expect(!taps.mayHaveTaps(projectID: "p", regionKey: "relay:US", before: Timestamp(milliseconds: 10_000_000), windowSeconds: 300))
        let unknown = RecentRelayTaps(stored: nil)
        #expect(unknown.mayHaveTaps(projectID: "p", regionKey: "relay:US", before: Timestamp(milliseconds: 1), windowSeconds: 300))
    }
}
