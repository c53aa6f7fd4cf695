/// The key of a `link_cohort_revenue` tally: what kind of money (a captured payment, or the
/// revenue an event declares), its currency ('' is the project's), the span after install it came
/// in (`EventTallies.span`) and the link of the install. Written by `Counting`, read by the ROAS
/// report, which needs revenue by campaign and by day after install at once.
public struct LinkCohortRevenue: Sendable, Equatable, Hashable {
    public enum Kind: String, Sendable {
        case payment, event
    }

    public let kind: Kind
    public let currency: String
    /// The last day of the span (0, 1, 3, 7, 14, 30).
    public let span: Int64
    public let linkID: String

    public init(kind: Kind, currency: String, span: Int64, linkID: String) {
        self.kind = kind
        self.currency = currency
        self.span = span
        self.linkID = linkID
    }

    /// `kind:currency:span:link` (no part before the link has a colon; a link id has none either,
    /// but whatever follows the third colon is the link's).
    public var value: String { "\(kind.rawValue):\(currency):\(span):\(linkID)" }

    public init?(value: String) {
        let parts = value.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, let kind = Kind(rawValue: String(parts[0])), let span = Int64(parts[2]) else { return nil }
        self.init(kind: kind, currency: String(parts[1]), span: span, linkID: String(parts[3]))
    }
}
