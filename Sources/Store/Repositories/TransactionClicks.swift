import Attribution
import SQLValues
import StoreContracts

/// The `ClickSource` of one install's write transaction: the candidate clicks the cascade asks for,
/// read on the writer connection that then stores the install and claims the click, so no other
/// install can claim it in between.
struct TransactionClicks<Session: StoreSession>: ClickSource {
    let connection: Session
    let projectID: String
    /// The project's window, for clicks whose link and template set none.
    let defaultWindowHours: Int
    /// Clicks another transaction claimed or is claiming (PostgreSQL): no longer candidates.
    var taken: Set<String> = []
    /// The cascade's reads made ahead in one statement (PostgreSQL), by read.
    private let prefetched = PrefetchedCandidates()

    func click(referredBy clickID: String) throws -> CandidateClick? {
        try prefetchedOr(.referredBy(clickID: clickID)) { try candidates(.clickID, clickID, limit: 1) }.first
    }

    func clicks(onLink linkID: String, limit: Int) throws -> [CandidateClick] {
        try prefetchedOr(.onLink(linkID: linkID, limit: limit)) { try candidates(.link, linkID, limit: limit) }
    }

    func clicks(idfv: String, limit: Int) throws -> [CandidateClick] {
        try prefetchedOr(.idfv(idfv, limit: limit)) { try candidates(.idfv, idfv, limit: limit) }
    }

    func clicks(advertisingID: String, limit: Int) throws -> [CandidateClick] {
        try prefetchedOr(.advertisingID(advertisingID, limit: limit)) { try candidates(.advertisingID, advertisingID, limit: limit) }
    }

    func clicks(network ipKey: String, after: Timestamp, limit: Int) throws -> [CandidateClick] {
        try prefetchedOr(.network(ipKey: ipKey, after: after, limit: limit)) { try candidates(.network, ipKey, after.milliseconds, limit: limit) }
    }

    /// On PostgreSQL, where each statement is a round trip to another process, the cascade's
    /// reads as one `UNION ALL` (each link's window joined in, where SQLite looks each distinct
    /// link up once); on SQLite, whose reads are function calls, nothing ahead. Made again on
    /// every pass of the claim loop, which must see claims committed meanwhile.
    func prefetch(_ reads: [CandidateRead]) throws {
        guard Session.statementsAreRoundTrips, let statement = CandidateFilter.prefetchStatement(projectID: projectID, reads: reads) else { return }
        let rows: [PrefetchedCandidate]
        if let ahead = prefetched.withTier0.take(), ahead.reads == reads {
            rows = ahead.rows
        } else {
            rows = try connection.query(statement.sql, values: statement.values) { row in
                CandidateFilter.prefetched(row, from: 0, defaultWindowHours: defaultWindowHours)
            }
        }
        var found: [CandidateRead: [CandidateClick]] = [:]
        for (index, read) in reads.enumerated() {
            // Newest first, as each branch ordered them (a UNION ALL need not keep that order).
            found[read] = rows.filter { $0.read == index }.map(\.click).sorted { $0.createdAt > $1.createdAt }
        }
        prefetched.byRead = found
    }

    /// The first prefetch of `reads` takes `rows`, read with tier 0 (`InstallRepository.sameInstallStatement`).
    func prefetched(_ rows: [PrefetchedCandidate], for reads: [CandidateRead]) {
        prefetched.withTier0 = (reads, rows)
    }

    private func prefetchedOr(_ read: CandidateRead, _ query: () throws -> [CandidateClick]) throws -> [CandidateClick] {
        guard var clicks = prefetched.byRead[read] else { return try query() }
        if !taken.isEmpty { clicks.removeAll { taken.contains($0.clickID) } }
        return clicks
    }

    /// The clicks, newest first, with each link's window resolved once per distinct link rather
    /// than per row.
    private func candidates<each Value: StoreArgument>(_ filter: CandidateFilter, _ values: repeat each Value, limit: Int) throws -> [CandidateClick]
    {
        var clicks = try connection.query(filter.sql, projectID, repeat each values, limit) {
            CandidateFilter.click($0, from: 0, windowHours: defaultWindowHours)
        }
        if !taken.isEmpty { clicks.removeAll { taken.contains($0.clickID) } }
        var windows: [String: Int] = [:]
        for index in clicks.indices {
            guard let linkID = clicks[index].linkID else { continue }
            if windows[linkID] == nil {
                windows[linkID] =
                    try connection.queryOne(CandidateFilter.windowOfLink, defaultWindowHours, linkID) { Int($0.int(0)) } ?? defaultWindowHours
            }
            clicks[index].windowHours = windows[linkID]!
        }
        return clicks
    }
}

/// A prefetched candidate: the index of its read, the click.
typealias PrefetchedCandidate = (read: Int, click: CandidateClick)

/// The prefetched reads of one install's transaction; a class, as the source is a value the
/// cascade is handed.
private final class PrefetchedCandidates {
    var byRead: [CandidateRead: [CandidateClick]] = [:]
    /// Candidates read with tier 0, until the first prefetch.
    var withTier0: (reads: [CandidateRead], rows: [PrefetchedCandidate])?
}

/// Which clicks a candidate query selects; each has its SQL text built once.
enum CandidateFilter {
    case clickID, link, idfv, advertisingID
    /// Same network (`ip_key`), newer than a time.
    case network

    private static let columns = """
        c.click_id, c.link_id, c.created_at, c.platform, c.os_version, c.device_class, c.screen_width, c.screen_height,
            c.pixel_ratio, c.timezone, c.utc_offset_min, c.languages, c.user_agent, c.ip_key, c.source, c.idfv, c.advertising_id, c.ip_class
        """

    private static func sql(_ condition: String) -> String {
        """
        SELECT \(columns)
        FROM clicks c
        WHERE c.project_id = ? AND \(condition) AND c.is_bot = FALSE AND c.claimed_at IS NULL
        ORDER BY c.created_at DESC LIMIT ?
        """
    }

    /// The click of a row whose `columns` start at `first`.
    static func click(_ row: some ColumnReader, from first: Int32, windowHours: Int) -> CandidateClick {
        let ratio = row.optionalDouble(first + 8)
        return CandidateClick(
            clickID: row.string(first), linkID: row.optionalString(first + 1), createdAt: Timestamp(milliseconds: row.int(first + 2)),
            platform: row.optionalString(first + 3).flatMap(UserAgentInfo.Platform.init(rawValue:)), osVersion: row.optionalString(first + 4),
            deviceClass: row.optionalString(first + 5).flatMap(UserAgentInfo.DeviceClass.init(rawValue:)),
            screen: ScreenSize(points: row.optionalDouble(first + 6), row.optionalDouble(first + 7), scale: ratio),
            screenPoints: ScreenSize(points: row.optionalDouble(first + 6), row.optionalDouble(first + 7), scale: 1),
            timezone: row.optionalString(first + 9), utcOffsetMinutes: row.optionalInt(first + 10).map(Int.init),
            languages: row.optionalString(first + 11).map(JSONText.decodeStrings) ?? [], userAgent: row.optionalString(first + 12),
            ipKey: row.optionalString(first + 13), windowHours: windowHours,
            isAppOpen: row.optionalString(first + 14).map { $0 != Click.Source.link.rawValue } ?? false,
            idfv: row.optionalString(first + 15), advertisingID: row.optionalString(first + 16),
            addressClass: row.optionalString(first + 17).map(AddressClass.init(rawValue:)))
    }

    /// The row of `withWindow` whose columns start at `first`.
    static func prefetched(_ row: some ColumnReader, from first: Int32, defaultWindowHours: Int) -> PrefetchedCandidate {
        (Int(row.int(first)), click(row, from: first + 1, windowHours: row.optionalInt(first + 19).map(Int.init) ?? defaultWindowHours))
    }

    /// The columns of `withWindow`: the tag, the click's eighteen, the window.
    static let prefetchedColumnCount = 20

    /// A read tagged with its place among the prefetched ones, its link's window (NULL: the
    /// project's) joined in.
    static func withWindow(_ filter: CandidateFilter, tag: Int) -> String {
        """
        SELECT \(tag), \(columns), coalesce(l.attribution_window_hours, t.attribution_window_hours)
        FROM clicks c LEFT JOIN links l ON l.id = c.link_id LEFT JOIN templates t ON t.id = l.template_id
        WHERE c.project_id = ? AND \(filter.condition) AND c.is_bot = FALSE AND c.claimed_at IS NULL
        ORDER BY c.created_at DESC LIMIT ?
        """
    }

    /// The reads of `filters` as one `UNION ALL`, each tagged with its index.
    static func prefetchText(_ filters: [CandidateFilter]) -> String {
        prefetchTexts.text(for: filters) {
            filters.enumerated().map { "(\(withWindow($1, tag: $0)))" }.joined(separator: " UNION ALL ")
        }
    }

    private static let prefetchTexts = StatementTextCache<[CandidateFilter]>()

    /// The filter of a read, its keys in the order of its condition, and its limit.
    static func of(_ read: CandidateRead) -> (CandidateFilter, [SQLValue], Int) {
        switch read {
        case .referredBy(let clickID): (.clickID, [.text(clickID)], 1)
        case .onLink(let linkID, let limit): (.link, [.text(linkID)], limit)
        case .idfv(let idfv, let limit): (.idfv, [.text(idfv)], limit)
        case .advertisingID(let advertisingID, let limit): (.advertisingID, [.text(advertisingID)], limit)
        case .network(let ipKey, let after, let limit): (.network, [.text(ipKey), .integer(after.milliseconds)], limit)
        }
    }

    private var condition: String {
        switch self {
        case .clickID: "c.click_id = ?"
        case .link: "c.link_id = ?"
        case .idfv: "c.idfv = ?"
        case .advertisingID: "c.advertising_id = ?"
        case .network: "c.ip_key = ? AND c.created_at > ?"
        }
    }

    private static let byClickID = sql(Self.clickID.condition)
    private static let byLink = sql(Self.link.condition)
    private static let byIDFV = sql(Self.idfv.condition)
    private static let byAdvertisingID = sql(Self.advertisingID.condition)
    private static let byNetwork = sql(Self.network.condition)

    var sql: String {
        switch self {
        case .clickID: Self.byClickID
        case .link: Self.byLink
        case .idfv: Self.byIDFV
        case .advertisingID: Self.byAdvertisingID
        case .network: Self.byNetwork
        }
    }

    static let windowOfLink = """
        SELECT coalesce(l.attribution_window_hours, t.attribution_window_hours, ?)
        FROM links l LEFT JOIN templates t ON t.id = l.template_id WHERE l.id = ?
        """
}

extension CandidateFilter {
    /// The statement `prefetch` runs for `reads` (nil: none), which a write may also send ahead.
    static func prefetchStatement(projectID: String, reads: [CandidateRead]) -> (sql: String, values: [SQLValue])? {
        guard !reads.isEmpty else { return nil }
        var filters: [CandidateFilter] = []
        var values: [SQLValue] = []
        for read in reads {
            let (filter, keys, limit) = CandidateFilter.of(read)
            filters.append(filter)
            values.append(.text(projectID))
            values += keys
            values.append(.integer(Int64(limit)))
        }
        return (CandidateFilter.prefetchText(filters), values)
    }
}
