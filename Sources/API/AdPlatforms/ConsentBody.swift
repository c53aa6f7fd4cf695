import Attribution

/// Consent as the admin API shows it: every signal present, null where unknown.
struct ConsentBody: Encodable {
    let consent: Consent

    init(_ consent: Consent) { self.consent = consent }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Consent.CodingKeys.self)
        try c.encode(consent.eea, forKey: .eea)
        try c.encode(consent.adUserData, forKey: .adUserData)
        try c.encode(consent.adPersonalization, forKey: .adPersonalization)
        try c.encode(consent.tcfString, forKey: .tcfString)
        try c.encode(consent.attStatus?.rawValue, forKey: .attStatus)
    }
}
