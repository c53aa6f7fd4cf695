import Attribution
import Testing
@testable import App

@Suite struct OutboundPolicyTests {
    @Test func internalAddressesAreKnown() {
        let internalAddresses: [[UInt8]] = [[127, 0, 0, 1], [10, 0, 0, 1], [172, 16, 0, 1], [172, 31, 255, 255], [192, 168, 1, 1], [169, 254, 169, 254],
                                   [100, 64, 0, 1], [0, 0, 0, 0], [224, 0, 0, 1], [255, 255, 255, 255],
                                   Array(repeating: 0, count: 15) + [1], [0xFD] + Array(repeating: 0, count: 15),
                                   [0xFE, 0x80] + Array(repeating: 0, count: 14),
                                   Array(repeating: 0, count: 10) + [0xFF, 0xFF, 127, 0, 0, 1]]
        for address in internalAddresses { #expect(OutboundAddressPolicy.isInternal(address), "\(address)") }
        let external: [[UInt8]] = [[8, 8, 8, 8], [172, 32, 0, 1], [100, 128, 0, 1], [93, 184, 216, 34],
                                   [0x26, 0x06, 0x47, 0x00] + Array(repeating: 0, count: 12)]
        for address in external { #expect(!OutboundAddressPolicy.isInternal(address), "\(address)") }
    }

    @Test func urlsThatAreNotHTTPOrCarryCredentialsAreRefusedEvenWhenPrivateIsAllowed() {
        let open = OutboundAddressPolicy(allowPrivateAddresses: true)
        #expect(open.refusal(for: "http://127.0.0.1/") == nil)
        #expect(open.refusal(for: "ftp://example.com/") != nil)
        #expect(open.refusal(for: "https://user:pw@example.com/") != nil)
        #expect(open.refusal(for: "/relative") != nil)
        #expect(OutboundAddressPolicy(allowPrivateAddresses: false).refusal(for: "http://127.0.0.1:8080/") != nil)
    }

    @Test func theScheduleWaitsThenGivesUp() {
        let schedule = DeliverySchedule.standard
        let now = Timestamp(milliseconds: 0)
        #expect(schedule.nextAttempt(afterAttempts: 1, now: now, retryAfterSeconds: nil, random: 0)?.milliseconds == 5_000)
        #expect(schedule.nextAttempt(afterAttempts: 2, now: now, retryAfterSeconds: nil, random: 1)?.milliseconds == 330_000)
        #expect(schedule.nextAttempt(afterAttempts: 7, now: now, retryAfterSeconds: nil, random: 0)?.milliseconds == 36_000_000)
        #expect(schedule.nextAttempt(afterAttempts: 8, now: now, retryAfterSeconds: nil) == nil, "eight attempts in all")
        #expect(schedule.nextAttempt(afterAttempts: 1, now: now, retryAfterSeconds: 120)?.milliseconds == 120_000)
        #expect(DeliverySchedule.retryAfterSeconds("30", now: now) == 30)
        #expect(DeliverySchedule.retryAfterSeconds("Thu, 01 Jan 1970 00:01:00 GMT", now: now) == 60)
    }
}
