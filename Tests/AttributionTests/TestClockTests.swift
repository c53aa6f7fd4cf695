import Attribution
import Testing

@Suite struct TestClockUnitTests {
    @Test func standsStillAndMovesOnlyForward() {
        let clock = TestClock(Timestamp(milliseconds: 1_000))
        #expect(clock.now() == Timestamp(milliseconds: 1_000))
        #expect(clock.move(to: Timestamp(milliseconds: 5_000)))
        #expect(clock.move(to: Timestamp(milliseconds: 5_000)), "staying put is allowed")
        #expect(!clock.move(to: Timestamp(milliseconds: 4_999)))
        #expect(clock.now() == Timestamp(milliseconds: 5_000))
    }
}
