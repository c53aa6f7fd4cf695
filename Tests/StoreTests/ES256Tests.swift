import Cryptography
@_spi(StoreInternals) import Store
import StoreContracts
import TestSupport
import Testing

/// ES256 through OpenSSL: the raw `r ‖ s` JWS wants, checked against the key's public half.
@Suite struct ES256Tests {
    static let testKey = TestKeys.p256

    @Test func signsWhatItsPublicKeyVerifies() throws {
        let message = Array("header.payload".utf8)
        #expect(ES256.isPrivateKey(Self.testKey))
        let signature = try #require(ES256.sign(message, privateKeyPEM: Self.testKey))
        #expect(signature.count == 64)
        #expect(ES256.verify(signature, message: message, privateKeyPEM: Self.testKey))
        #expect(!ES256.verify(signature, message: Array("header.payloaD".utf8), privateKeyPEM: Self.testKey))
        var tampered = signature
        tampered[10] ^= 1
        #expect(!ES256.verify(tampered, message: message, privateKeyPEM: Self.testKey))
    }

    @Test func refusesWhatIsNotAP256PrivateKey() {
        for pem in ["", "not a key", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"] {
            #expect(!ES256.isPrivateKey(pem))
            #expect(ES256.sign([1, 2, 3], privateKeyPEM: pem) == nil)
        }
    }
}
