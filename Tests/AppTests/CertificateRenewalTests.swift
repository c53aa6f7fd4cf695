import Attribution
import StoreContracts
import Testing

@testable import App
@testable import Store

/// When the certificate service orders a domain's certificate: none yet, or two thirds of the
/// lifetime gone; never while a back-off runs. The waits grow 1, 2, 4 … minutes, at most a day.
@Suite struct CertificateRenewalTests {
    static func record(notBefore: Int64?, notAfter: Int64?, failures: Int = 0, nextAttemptAt: Int64 = 0) -> DomainCertificateRecord {
        DomainCertificateRecord(
            domain: "links.shop.test", chainPEM: notAfter == nil ? nil : "chain", keyPEM: notAfter == nil ? nil : "key", notBefore: notBefore,
            notAfter: notAfter, issuedAt: nil, failures: failures, nextAttemptAt: Timestamp(milliseconds: nextAttemptAt), lastError: nil)
    }

    static let day: Int64 = 86_400
    static let start: Int64 = 1_800_000_000

    @Test func aCertificateIsRenewedAtTwoThirdsOfItsLifetime() {
        let ninetyDays = Self.record(notBefore: Self.start, notAfter: Self.start + 90 * Self.day)
        let at = { (seconds: Int64) in Timestamp(milliseconds: seconds * 1000) }
        #expect(!CertificateService.isDue(ninetyDays, now: at(Self.start + 59 * Self.day)))
        #expect(CertificateService.isDue(ninetyDays, now: at(Self.start + 60 * Self.day)))
        #expect(CertificateService.isDue(nil, now: at(Self.start)), "a domain with no certificate yet")
    }

    @Test func aFailureWaitsLongerEachTimeAndNeverMoreThanADay() {
        #expect(CertificateService.backOff(afterFailures: 1) == 60_000)
        #expect(CertificateService.backOff(afterFailures: 2) == 120_000)
        #expect(CertificateService.backOff(afterFailures: 5) == 960_000)
        #expect(CertificateService.backOff(afterFailures: 12) == 86_400_000)
        #expect(CertificateService.backOff(afterFailures: 500) == 86_400_000)
        let failing = Self.record(notBefore: nil, notAfter: nil, failures: 3, nextAttemptAt: Self.start * 1000 + 240_000)
        #expect(!CertificateService.isDue(failing, now: Timestamp(milliseconds: Self.start * 1000)))
        #expect(CertificateService.isDue(failing, now: Timestamp(milliseconds: Self.start * 1000 + 240_000)))
    }
}
