import Attribution
public import StoreContracts

/// An hour of the export (UTC), as its start in milliseconds, and where its files go.
public struct ExportHour: Sendable, Hashable, Comparable {
    public static let milliseconds: Int64 = 3_600_000

    public let start: Int64

    /// The hour holding `time`, held within years 1970–9999 (a stored time past them is a hand
    /// edit, and `end` must not overflow).
    public init(containing time: Int64) {
        start = min(max(time, 0), 253_402_300_799_999) / Self.milliseconds * Self.milliseconds
    }

    /// `2026-12-04T01` (the command line's form), or nil.
    public init?(text: String) {
        guard text.count == 13, text.dropFirst(10).first == "T", let hour = Int(text.suffix(2)), (0..<24).contains(hour),
            let day = Timestamp(iso8601: String(text.prefix(10)))
        else { return nil }
        start = day.milliseconds + Int64(hour) * Self.milliseconds
    }

    public var end: Int64 { start + Self.milliseconds }
    public var next: ExportHour { ExportHour(containing: end) }

    /// `2026-12-04T01:00:00Z`.
    public var text: String { Timestamp(milliseconds: start).iso8601 }
    /// `2026-12-04`.
    public var day: String { String(text.prefix(10)) }
    /// `01`.
    public var hourOfDay: String { String(text.dropFirst(11).prefix(2)) }

    /// `table=clicks/date=2026-12-04/hour=01/clicks.csv.gz`.
    public func key(table: ExportTable, format: ExportFormat) -> String {
        "table=\(table.rawValue)/date=\(day)/hour=\(hourOfDay)/\(table.rawValue).\(format.fileExtension)"
    }

    /// `_manifests/date=2026-12-04/hour=01/manifest.json`.
    public var manifestKey: String { "_manifests/date=\(day)/hour=\(hourOfDay)/manifest.json" }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.start < rhs.start }
}
