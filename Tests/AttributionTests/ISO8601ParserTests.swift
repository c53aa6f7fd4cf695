import Foundation
import Testing

@testable import Attribution

/// The parser before it was written by hand: Foundation's formatters, tried in the same order.
/// Compared on well-formed text only: on malformed text Foundation was lenient in ways that lost
/// the time (see `knownMomentsAndRefusals`).
private func referenceParse(_ text: String) -> Timestamp? {
    let withFraction = ISO8601DateFormatter()
    withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    let plain = ISO8601DateFormatter()
    plain.formatOptions = [.withInternetDateTime]
    let dateOnly = ISO8601DateFormatter()
    dateOnly.formatOptions = [.withFullDate]
    guard let date = plain.date(from: text) ?? withFraction.date(from: text) ?? dateOnly.date(from: text) else { return nil }
    return Timestamp(date)
}

struct ISO8601ParserTests {
    @Test func agreesWithFoundationsFormatters() {
        var generator = SeededGenerator(seed: 2026)
        var texts: [String] = []
        for _ in 0..<3000 {
            let year = Int.random(in: 1900...2100, using: &generator)
            let month = Int.random(in: 1...12, using: &generator)
            let day = Int.random(in: 1...31, using: &generator)
            let time = String(
                format: "%02d:%02d:%02d", Int.random(in: 0...23, using: &generator), Int.random(in: 0...59, using: &generator),
                Int.random(in: 0...59, using: &generator))
            let fraction =
                Bool.random(using: &generator)
                ? ""
                : "."
                    + String(
                        (0..<Int.random(in: 1...9, using: &generator)).map { _ in
                            Character(String(Int.random(in: 0...9, using: &generator)))
                        })
            let zone = ["Z", "+01:00", "-05:30", "+14:00", "-12:00", "+00:00"].randomElement(using: &generator)!
            let date = String(format: "%04d-%02d-%02d", year, month, day)
            texts.append(date)
            texts.append("\(date)T\(time)\(fraction)\(zone)")
        }
        var differences: [String] = []
        for text in texts where Timestamp(iso8601: text) != referenceParse(text) && !Self.namesADayTheMonthLacks(text) {
            differences.append(
                "\(text): ours \(String(describing: Timestamp(iso8601: text))), Foundation \(String(describing: referenceParse(text)))")
        }
        #expect(differences.isEmpty, "\(differences.prefix(20))")
    }

    /// Foundation rolls 2026-02-30 over to March 2; we refuse it.
    static func namesADayTheMonthLacks(_ text: String) -> Bool {
        let parts = text.prefix(10).split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return false }
        let (year, month, day) = (parts[0], parts[1], parts[2])
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return (1...12).contains(month) && day > lengths[month - 1] && Timestamp(iso8601: text) == nil
    }

    @Test func knownMomentsAndRefusals() {
        #expect(Timestamp(iso8601: "1970-01-01T00:00:00Z") == Timestamp(milliseconds: 0))
        #expect(Timestamp(iso8601: "2026-11-20T10:00:05Z") == Timestamp(milliseconds: 1_795_168_805_000))
        #expect(Timestamp(iso8601: "2026-11-20T11:00:05.123+01:00") == Timestamp(milliseconds: 1_795_168_805_123))
        #expect(Timestamp(iso8601: "2026-11-20T04:30:05.1239-0530") == Timestamp(milliseconds: 1_795_168_805_123))
        #expect(Timestamp(iso8601: "2024-02-29") == Timestamp(milliseconds: 1_709_164_800_000))
        #expect(Timestamp(iso8601: "1969-12-31T23:59:59.999Z") == Timestamp(milliseconds: -1))
        // Foundation took several of these: a date followed by anything became its midnight
        // ("2026-11-20T10:00:05", with no zone, was read as 00:00), and "26-11-20" was the year 26.
        for text in [
            "2023-02-29", "2100-02-29", "2026-04-31", "2026-13-01", "2026-00-10", "2026-11-20T24:00:00Z", "2026-11-20T10:60:00Z",
            "2026-11-20T10:00:60Z", "2026-11-20T10:00:05", "2026-11-20T10:00:05.Z", "2026-11-20 10:00:05Z",
            "2026-11-20T10:00:05Zjunk", "2026-11-20junk", "26-11-20", "2026-1-20", "2026-11-20T10:00Z", "20261120", "", "T",
        ] {
            #expect(Timestamp(iso8601: text) == nil, "\(text)")
        }
    }
}
