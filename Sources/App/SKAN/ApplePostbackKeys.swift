import Foundation

/// The public keys Apple signs postbacks with, by `kid` (DER SubjectPublicKeyInfo, P-256), as
/// Apple publishes them on "Verifying a postback" and "Verifying an install-validation postback".
/// SKAdNetwork 2.1+ signs with the production key too (its `kid` here).
struct ApplePostbackKeys: Sendable {
    var keys: [String: [UInt8]]

    static let apple = ApplePostbackKeys(keys: [
        "apple-cas-identifier/0": der(
            "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEWdp8GPcGqmhgzEFj9Z2nSpQVddayaPe4FMzqM9wib1+aHaaIzoHoLN9zW4K8y4SPykE3YVK3sVqW6Af0lfx3gg=="),
        "apple-development-identifier/0": der(
            "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAELeEDzpJEP+/qRSE5hJVC1p1J0ssUnQGMzBBbvnACBok8OVGGLgxL0myrKiy6lvRtSlLRsWit87i+vftD8AEqeQ=="),
        "apple-development-identifier/1": der(
            "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE8YzdO7eM97s/IJ25kdW5CZ3A14USE5IJ5Ha/vhWaxI6UBI1ZxCEvjrKxVluVGe6qWwF1BDFq+QHqKfH5u+wxHQ=="),
    ])

    private static func der(_ base64: String) -> [UInt8] { Array(Data(base64Encoded: base64)!) }
}
