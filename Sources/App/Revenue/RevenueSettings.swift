/// Where store-verified revenue is checked against (docs/revenue.md): the roots App Store
/// notifications must chain up to (`ATTRIBUTIOND_APPLE_ROOT_CERTIFICATES`, a PEM file; Apple Root
/// CA – G3 when unset), so that tests and private deployments can make their own chain.
public struct RevenueSettings: Sendable {
    public static let googlePlayURL = "https://androidpublisher.googleapis.com/"
    public static let googleCertsURL = "https://www.googleapis.com/oauth2/v3/certs"

    public var appleRootCertificatesPEM: String
    /// The Android Publisher API's base (`ATTRIBUTIOND_GOOGLE_PLAY_URL`; tests point it at a fake).
    public var googlePlayURL: String
    /// Where the ECB's daily reference rates are fetched (`ATTRIBUTIOND_FX_URL`; empty: never).
    public var exchangeRatesURL: String?
    /// Google's OIDC signing keys, which Pub/Sub push tokens are checked against
    /// (`ATTRIBUTIOND_GOOGLE_CERTS_URL`; tests point it at a fake).
    public var googleCertsURL: String

    public init(
        appleRootCertificatesPEM: String = AppleRootCertificates.g3PEM, googlePlayURL: String = RevenueSettings.googlePlayURL,
        exchangeRatesURL: String? = ECBRateFetcher.dailyURL, googleCertsURL: String = RevenueSettings.googleCertsURL
    ) {
        self.exchangeRatesURL = exchangeRatesURL
        self.googleCertsURL = googleCertsURL
        self.appleRootCertificatesPEM = appleRootCertificatesPEM
        self.googlePlayURL = AppleAdsSettings.directory(googlePlayURL)
    }
}

/// Apple's public root certificates, as apple.com/certificateauthority publishes them.
public enum AppleRootCertificates {
    /// Apple Root CA – G3 (ECC P-384, valid until 2039): the root of the App Store's signing
    /// chain. SHA-256 of its DER: 63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79.
    public static let g3PEM = """
        -----BEGIN CERTIFICATE-----
        MIICQzCCAcmgAwIBAgIILcX8iNLFS5UwCgYIKoZIzj0EAwMwZzEbMBkGA1UEAwwS
        QXBwbGUgUm9vdCBDQSAtIEczMSYwJAYDVQQLDB1BcHBsZSBDZXJ0aWZpY2F0aW9u
        IEF1dGhvcml0eTETMBEGA1UECgwKQXBwbGUgSW5jLjELMAkGA1UEBhMCVVMwHhcN
        MTQwNDMwMTgxOTA2WhcNMzkwNDMwMTgxOTA2WjBnMRswGQYDVQQDDBJBcHBsZSBS
        b290IENBIC0gRzMxJjAkBgNVBAsMHUFwcGxlIENlcnRpZmljYXRpb24gQXV0aG9y
        aXR5MRMwEQYDVQQKDApBcHBsZSBJbmMuMQswCQYDVQQGEwJVUzB2MBAGByqGSM49
        AgEGBSuBBAAiA2IABJjpLz1AcqTtkyJygRMc3RCV8cWjTnHcFBbZDuWmBSp3ZHtf
        TjjTuxxEtX/1H7YyYl3J6YRbTzBPEVoA/VhYDKX1DyxNB0cTddqXl5dvMVztK517
        IDvYuVTZXpmkOlEKMaNCMEAwHQYDVR0OBBYEFLuw3qFYM4iapIqZ3r6966/ayySr
        MA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0PAQH/BAQDAgEGMAoGCCqGSM49BAMDA2gA
        MGUCMQCD6cHEFl4aXTQY2e3v9GwOAEZLuN+yRhHFD/3meoyhpmvOwgPUnPWTxnS4
        at+qIxUCMG1mihDK1A3UT82NQz60imOlM27jbdoXt2QfyFMm+YhidDkLF1vLUagM
        6BgD56KyKA==
        -----END CERTIFICATE-----
        """
}
