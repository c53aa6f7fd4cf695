import Attribution
import Testing

struct TimeSpecificationTests {
    let now = Timestamp(milliseconds: 1_795_000_000_000)

    @Test func spansCountBackFromNow() {
        #expect(TimeSpecification.parse("7d", now: now) == now.adding(seconds: -7 * 86_400))
        #expect(TimeSpecification.parse("24h", now: now) == now.adding(seconds: -86_400))
        #expect(TimeSpecification.parse("30m", now: now) == now.adding(seconds: -1_800))
        #expect(TimeSpecification.parse("0d", now: now) == now)
    }

    @Test func epochMillisecondsAndISO8601AreMoments() {
        #expect(TimeSpecification.parse("946684800000", now: now) == Timestamp(milliseconds: 946_684_800_000))
        #expect(TimeSpecification.parse("2000-01-01T00:00:00Z", now: now) == Timestamp(milliseconds: 946_684_800_000))
    }

    /// A span beyond 64-bit milliseconds is refused, not computed with an overflow (which traps).
    @Test(arguments: ["999999999999d", "9223372036854775807h", "-7d", "7w", "d", "", "yesterday", "99999999999999999999"])
    func otherTextIsNoTime(_ text: String) {
        #expect(TimeSpecification.parse(text, now: now) == nil)
    }
}
