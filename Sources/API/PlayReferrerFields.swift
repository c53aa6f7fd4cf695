import Attribution
import HTTP

/// The Play Install Referrer's times, read wherever a family carries the referrer: Google's names
/// (`referrer_click_timestamp_seconds`, `install_begin_timestamp_seconds`, and the `_server_`
/// variants Play stamps with its own clock, preferred when present), their camel-case spelling
/// (LinkForty's bodies) and Branch's (`clicked_referrer_ts`, `install_begin_ts`, `…_server_ts`).
enum PlayReferrerFields {
    static let referrerClickKeys = [
        "referrer_click_timestamp_server_seconds", "referrer_click_timestamp_seconds", "referrerClickTimestampServerSeconds",
        "referrerClickTimestampSeconds", "clicked_referrer_server_ts", "clicked_referrer_ts",
    ]
    static let installBeginKeys = [
        "install_begin_timestamp_server_seconds", "install_begin_timestamp_seconds", "installBeginTimestampServerSeconds",
        "installBeginTimestampSeconds", "install_begin_server_ts", "install_begin_ts",
    ]

    /// Seconds since 1970 from 2010 to 2100; Play's 0 (not known) is none.
    static let plausibleSeconds = 1_262_304_000.0...4_102_444_800.0

    static func times(_ bodies: [JSONFields?]) throws -> PlayReferrerTimes? {
        var times = PlayReferrerTimes()
        for body in bodies.compactMap({ $0 }) {
            times.referrerClick = try times.referrerClick ?? first(of: referrerClickKeys, in: body)
            times.installBegin = try times.installBegin ?? first(of: installBeginKeys, in: body)
        }
        return times.isEmpty ? nil : times
    }

    private static func first(of keys: [String], in body: JSONFields) throws -> Timestamp? {
        for key in keys {
            let seconds: Double
            switch body.fields[key] {
            case nil, .null?: continue
            case .number(let value)?: seconds = value
            case .string(let text)? where Double(text) != nil: seconds = Double(text)!
            default: throw HTTPError.invalidField(key, "must be seconds since 1970, a number")
            }
            if seconds == 0 { continue }
            guard plausibleSeconds.contains(seconds) else {
                throw HTTPError.invalidField(key, "must be seconds since 1970 between 2010 and 2100 (0: not known)")
            }
            return Timestamp(milliseconds: Int64(seconds.rounded(.down)) * 1000)
        }
        return nil
    }
}
