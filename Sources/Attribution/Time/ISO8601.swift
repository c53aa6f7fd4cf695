import Foundation

extension Timestamp {
    /// `2026-11-20T10:00:05Z`: UTC, no fractional seconds (the iOS SDKs reject fractions).
    public var iso8601: String {
        var seconds = time_t(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let year = parts.tm_year + 1900
        if (0...9999).contains(year) {
            // Digits written in place: this runs for every webhook, response date and log line.
            return String(unsafeUninitializedCapacity: 20) { text in
                func put(_ value: Int32, width: Int, at start: Int) {
                    var rest = value
                    for index in stride(from: start + width - 1, through: start, by: -1) {
                        text[index] = 0x30 + UInt8(rest % 10)
                        rest /= 10
                    }
                }
                put(year, width: 4, at: 0)
                put(parts.tm_mon + 1, width: 2, at: 5)
                put(parts.tm_mday, width: 2, at: 8)
                put(parts.tm_hour, width: 2, at: 11)
                put(parts.tm_min, width: 2, at: 14)
                put(parts.tm_sec, width: 2, at: 17)
                text[4] = UInt8(ascii: "-")
                text[7] = UInt8(ascii: "-")
                text[10] = UInt8(ascii: "T")
                text[13] = UInt8(ascii: ":")
                text[16] = UInt8(ascii: ":")
                text[19] = UInt8(ascii: "Z")
                return 20
            }
        }
        func pad(_ value: Int32, _ width: Int = 2) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1))-\(pad(parts.tm_mday))T"
            + "\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec))Z"
    }

    /// Parses RFC 3339 date-times (`2026-11-20T10:00:05Z`, with or without fractional seconds,
    /// with `Z` or an offset `±hh:mm` / `±hhmm`) and dates alone (`2026-11-20`, midnight UTC).
    /// Fractions are cut to the millisecond. Days a month lacks (`2026-02-30`) are refused, where
    /// Foundation rolled them over into the next month. Written by hand: creating and running
    /// `ISO8601DateFormatter`s took ~360 µs per call, and LinkForty SDKs send a timestamp with
    /// every event.
    public init?(iso8601 text: String) {
        var reader = DigitReader(Array(text.utf8))
        guard let year = reader.number(digits: 4), reader.skip("-"), let month = reader.number(digits: 2), reader.skip("-"),
            let day = reader.number(digits: 2), (1...12).contains(month), (1...Self.days(inMonth: month, of: year)).contains(day)
        else { return nil }
        let midnight = Self.daysSinceEpoch(year: year, month: month, day: day) * 86_400_000
        if reader.atEnd {
            self.init(milliseconds: midnight)
            return
        }
        guard reader.skip("T"), let hour = reader.number(digits: 2), reader.skip(":"), let minute = reader.number(digits: 2),
            reader.skip(":"), let second = reader.number(digits: 2), hour < 24, minute < 60, second < 60
        else { return nil }
        var fraction: Int64 = 0
        if reader.skip(".") {
            guard let milliseconds = reader.fractionInMilliseconds() else { return nil }
            fraction = milliseconds
        }
        var offsetMinutes: Int64 = 0
        if !reader.skip("Z") {
            let sign: Int64
            if reader.skip("+") { sign = 1 } else if reader.skip("-") { sign = -1 } else { return nil }
            guard let offsetHours = reader.number(digits: 2) else { return nil }
            _ = reader.skip(":")
            guard let offsetMinutesPart = reader.number(digits: 2), offsetHours < 24, offsetMinutesPart < 60 else { return nil }
            offsetMinutes = sign * (offsetHours * 60 + offsetMinutesPart)
        }
        guard reader.atEnd else { return nil }
        self.init(milliseconds: midnight + ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 + fraction)
    }

    static func isLeap(_ year: Int64) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func days(inMonth month: Int64, of year: Int64) -> Int64 {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar: whole 400-year eras
    /// (146,097 days) counted from 0000-03-01, so that a leap day ends its year.
    static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

/// Reads fixed-width ASCII numbers and separators from the front of a byte string.
private struct DigitReader {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    mutating func number(digits: Int) -> Int64? {
        guard index + digits <= bytes.count else { return nil }
        var value: Int64 = 0
        for byte in bytes[index..<index + digits] {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int64(byte - 0x30)
        }
        index += digits
        return value
    }

    /// One or more digits after the decimal point, as whole milliseconds (further digits are
    /// dropped, as Foundation's formatter did).
    mutating func fractionInMilliseconds() -> Int64? {
        let start = index
        var milliseconds: Int64 = 0
        var scale: Int64 = 100
        while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
            milliseconds += Int64(bytes[index] - 0x30) * scale
            scale /= 10
            index += 1
        }
        return index > start ? milliseconds : nil
    }
}
