import Attribution
import CurlTransport
import Dispatch
import Synchronization
import Testing

@testable import App

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct OutboundPolicyTests {
    @Test func internalAddressesAreKnown() {
        let internalAddresses: [[UInt8]] = [
            [127, 0, 0, 1], [10, 0, 0, 1], [172, 16, 0, 1], [172, 31, 255, 255], [192, 168, 1, 1], [169, 254, 169, 254],
            [100, 64, 0, 1], [0, 0, 0, 0], [224, 0, 0, 1], [255, 255, 255, 255],
            Array(repeating: 0, count: 15) + [1], [0xFD] + Array(repeating: 0, count: 15),
            [0xFE, 0x80] + Array(repeating: 0, count: 14),
            Array(repeating: 0, count: 10) + [0xFF, 0xFF, 127, 0, 0, 1],
        ]
        for address in internalAddresses { #expect(OutboundAddressPolicy.isInternal(address), "\(address)") }
        let external: [[UInt8]] = [
            [8, 8, 8, 8], [172, 32, 0, 1], [100, 128, 0, 1], [93, 184, 216, 34],
            [0x26, 0x06, 0x47, 0x00] + Array(repeating: 0, count: 12),
        ]
        for address in external { #expect(!OutboundAddressPolicy.isInternal(address), "\(address)") }
    }

    /// IPv6 forms that a translator or tunnel delivers to an IPv4 address are judged by it.
    @Test func ipv6FormsCarryingAPrivateIPv4AddressAreInternal() {
        func v6(_ text: String) -> [UInt8] {
            var address = in6_addr()
            #expect(inet_pton(AF_INET6, text, &address) == 1, "\(text)")
            return withUnsafeBytes(of: &address) { Array($0) }
        }
        for text in [
            "64:ff9b::7f00:1", "64:ff9b::a00:1", "64:ff9b:1::7f00:1", "64:ff9b:1:abcd::1", "::127.0.0.1", "::a00:1",
            "2002:7f00:1::", "2002:c0a8:101::1", "::ffff:0:7f00:1", "::ffff:0:a9fe:a9fe", "::ffff:127.0.0.1",
            "2001:0:4136:e378:8000:63bf:80ff:fffe", "fec0::1",
        ] {
            #expect(OutboundAddressPolicy.isInternal(v6(text)), "\(text)")
        }
        for text in ["64:ff9b::808:808", "2002:808:808::1", "::ffff:0:808:808", "2606:4700::1111", "2001:0:4136:e378:8000:63bf:f7f7:f7f7"] {
            #expect(!OutboundAddressPolicy.isInternal(v6(text)), "\(text)")
        }
    }

    /// Checked again when connecting (a host's DNS answer may change after it was saved): the
    /// transport opens no socket to such an address.
    @Test func theTransportRefusesToConnectToThemToo() {
        let transport = CurlTransport(connectTimeout: 2, totalTimeout: 3, allowPrivateAddresses: false)
        for url in ["http://[64:ff9b::7f00:1]:9/hook", "http://[2002:7f00:1::]:9/hook", "http://[::127.0.0.1]:9/hook"] {
            let done = DispatchSemaphore(value: 0)
            let outcome = Mutex<Result<OutboundResponse, any Error>?>(nil)
            transport.send(OutboundRequest(method: "GET", url: url, headers: [], body: [])) { result in
                outcome.withLock { $0 = result }
                done.signal()
            }
            #expect(done.wait(timeout: .now() + 10) == .success)
            guard case .failure(let error)? = outcome.withLock({ $0 }) else {
                Issue.record("\(url) was sent")
                continue
            }
            #expect(error is OutboundAddressRefused, "\(url): \(error)")
        }
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
