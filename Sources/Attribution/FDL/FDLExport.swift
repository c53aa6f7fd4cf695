import Foundation

/// A Firebase Dynamic Links export (Google Takeout, "Export Dynamic Links metadata": one CSV file
/// per domain): its columns, found by name in any order, and each row as a link to import or the
/// reason it cannot be one, naming the column.
public enum FDLExport {
    /// What a column holds.
    public enum Column: Hashable, Sendable {
        case shortLink
        case parameter(String)
        case archived, name, createdAt
    }

    /// The column a header names: Google's English header (`Android package name (apn)`), the
    /// parameter alone (`apn`), or one of the columns with no parameter, in any case.
    public static func column(named header: String) -> Column? {
        let text = header.trimmingCharacters(in: .whitespaces).lowercased()
        let known = Set(FDLOptions.parameterNames + ["st", "sd", "si", "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"])
        if let open = text.lastIndex(of: "("), text.hasSuffix(")") {
            let inside = String(text[text.index(after: open)..<text.index(before: text.endIndex)])
            if known.contains(inside) { return .parameter(inside) }
        }
        if known.contains(text) { return .parameter(text) }
        if text.hasPrefix("itunes connect "), let token = text.split(separator: " ").last, ["at", "ct", "mt", "pt"].contains(String(token)) {
            return .parameter(String(token))
        }
        switch text {
        case "short link", "short_link", "shortlink": return .shortLink
        case "archived?", "archived", "is archived": return .archived
        case "link name", "name": return .name
        case "creation timestamp", "created", "created at", "creation time": return .createdAt
        default: return nil
        }
    }

    /// One row as a link to import.
    public struct Row: Sendable, Equatable {
        public let line: Int
        public let shortLink: String
        public let code: String
        public let options: FDLOptions
        /// Social title, description, image, and UTM, as the link's preview and campaign.
        public let social: (title: String?, description: String?, image: String?)
        public let utm: [String: String]
        public let name: String?
        public let archived: Bool
        public let createdAt: Timestamp?

        public static func == (lhs: Row, rhs: Row) -> Bool {
            lhs.line == rhs.line && lhs.code == rhs.code && lhs.options == rhs.options && lhs.name == rhs.name && lhs.archived == rhs.archived
        }
    }

    /// A row that cannot be imported: why, and the column at fault.
    public struct Refusal: Error, Sendable, Equatable {
        public let line: Int
        public let shortLink: String?
        public let column: String
        public let reason: String
    }

    /// A file that cannot be read at all (nothing of it is imported).
    public struct Unreadable: Error, Sendable, Equatable {
        public let reason: String
    }

    /// The rows of `csv`, for links on `domain`: each a link or a refusal.
    public static func rows(_ csv: [UInt8], domain: String) throws(Unreadable) -> [Result<Row, Refusal>] {
        var rows: [Result<Row, Refusal>] = []
        var reader = RowReader(domain: domain)
        do {
            try reader.feed(csv) { rows.append($0) }
            try reader.finish { rows.append($0) }
        } catch let unreadable as Unreadable {
            throw unreadable
        } catch {
            throw Unreadable(reason: "\(error)")
        }
        return rows
    }

    /// The rows of an export fed a piece at a time (`CSVTable.Reader`): the header first, then
    /// each row handed over as its line ends, so an import never holds the whole file's rows.
    /// Throws `Unreadable` for a file that is no export (its header, its CSV), or what `row` throws.
    public struct RowReader: Sendable {
        let domain: String
        private var csv = CSVTable.Reader()
        private var header: [String]?
        private var columns: [Column] = []

        /// Only the table's shape and header are checked, not each row (the first reading of an import).
        let checkingOnly: Bool

        public init(domain: String, checkingOnly: Bool = false) {
            self.domain = domain
            self.checkingOnly = checkingOnly
        }

        public mutating func feed(_ bytes: some Collection<UInt8>, _ row: (Result<Row, Refusal>) throws -> Void) throws {
            var csv = self.csv
            defer { self.csv = csv }
            do {
                try csv.feed(bytes) { line, fields in try take(line, fields, row) }
            } catch let malformed as CSVTable.Malformed {
                throw Unreadable(reason: "line \(malformed.line): \(malformed.reason)")
            }
        }

        public mutating func finish(_ row: (Result<Row, Refusal>) throws -> Void) throws {
            var csv = self.csv
            defer { self.csv = csv }
            do {
                try csv.finish { line, fields in try take(line, fields, row) }
            } catch let malformed as CSVTable.Malformed {
                throw Unreadable(reason: "line \(malformed.line): \(malformed.reason)")
            }
            guard header != nil else { throw Unreadable(reason: "the file is empty: a header row is expected") }
        }

        private mutating func take(_ line: Int, _ fields: [String], _ row: (Result<Row, Refusal>) throws -> Void) throws {
            guard let header else {
                var columns: [Column] = []
                for name in fields {
                    guard let column = FDLExport.column(named: name) else {
                        throw Unreadable(
                            reason:
                                "unknown column '\(name.prefix(80))' (the export's columns: Short link, Deep link (link), Android package name (apn), …)"
                        )
                    }
                    guard !columns.contains(column) else { throw Unreadable(reason: "the column '\(name.prefix(80))' appears twice") }
                    columns.append(column)
                }
                guard columns.contains(.shortLink) else { throw Unreadable(reason: "no 'Short link' column") }
                guard columns.contains(.parameter("link")) else { throw Unreadable(reason: "no 'Deep link (link)' column") }
                self.header = fields
                self.columns = columns
                return
            }
            if checkingOnly { return }
            try row(FDLExport.row(fields, line: line, header: header, columns: columns, domain: domain))
        }
    }

    static func row(_ fields: [String], line: Int, header: [String], columns: [Column], domain: String) -> Result<Row, Refusal> {
        var values: [Column: String] = [:]
        for (index, column) in columns.enumerated() where index < fields.count { values[column] = fields[index] }
        let shortLink = values[.shortLink]?.trimmingCharacters(in: .whitespaces) ?? ""
        func refuse(_ column: Column, _ reason: String) -> Result<Row, Refusal> {
            let name = columns.firstIndex(of: column).map { header[$0] } ?? "\(column)"
            return .failure(Refusal(line: line, shortLink: shortLink.isEmpty ? nil : shortLink, column: name, reason: reason))
        }
        guard fields.count == columns.count else {
            return refuse(.shortLink, "the row has \(fields.count) fields for \(columns.count) columns")
        }
        guard let url = URLComponents(string: shortLink), url.host?.lowercased() == domain else {
            return refuse(.shortLink, "'\(shortLink.prefix(120))' is not a link on \(domain)")
        }
        let code = String(url.path.drop { $0 == "/" })
        guard ShortCode.isValidCustom(code), !ShortCode.isReserved(code) else {
            return refuse(.shortLink, "its path '\(code.prefix(80))' cannot be a short code here (3 to 64 of A-Z a-z 0-9 _ -, not a reserved word)")
        }
        var parameters: [String: String] = [:]
        for case .parameter(let name) in columns { parameters[name] = values[.parameter(name)]?.trimmingCharacters(in: .whitespaces) }
        let options: FDLOptions
        switch FDLOptions.parse(parameters) {
        case .success(let parsed): options = parsed
        case .failure(let refusal): return refuse(.parameter(refusal.problem.key), refusal.problem.message)
        }
        let archivedText = values[.archived]?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        guard ["", "true", "false", "yes", "no", "1", "0"].contains(archivedText) else {
            return refuse(.archived, "'\(archivedText.prefix(20))' is not true or false")
        }
        var createdAt: Timestamp?
        if let text = values[.createdAt]?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            guard let time = timestamp(text) else {
                return refuse(.createdAt, "'\(text.prefix(40))' is not a time (ISO 8601 or yyyy-MM-dd HH:mm:ss)")
            }
            createdAt = time
        }
        func value(_ name: String) -> String? { parameters[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let image = value("si"), let problem = URLGrammar.httpURLProblem(image) { return refuse(.parameter("si"), problem) }
        var utm: [String: String] = [:]
        for key in ["source", "medium", "campaign", "term", "content"] { utm[key] = value("utm_" + key) }
        let name = values[.name].flatMap { $0.isEmpty ? nil : $0 }
        return .success(
            Row(
                line: line, shortLink: shortLink, code: code, options: options, social: (value("st"), value("sd"), value("si")), utm: utm,
                name: name, archived: ["true", "yes", "1"].contains(archivedText), createdAt: createdAt))
    }

    /// ISO 8601 (with or without fractions and zone) or `yyyy-MM-dd HH:mm:ss` (UTC), or seconds or
    /// milliseconds since 1970.
    static func timestamp(_ text: String) -> Timestamp? {
        if let time = Timestamp(iso8601: text) { return time }
        // Takeout's own form, `2024-03-01 10:00:00` (UTC), read as ISO 8601 without a formatter:
        // making one per row took ~360 µs, most of a million-row import's time.
        var iso = text.hasSuffix(" UTC") ? String(text.dropLast(4)) : text
        if iso.utf8.count >= 19, iso.utf8[iso.utf8.index(iso.utf8.startIndex, offsetBy: 10)] == UInt8(ascii: " ") {
            iso = String(iso.prefix(10)) + "T" + String(iso.dropFirst(11))
        }
        if !iso.hasSuffix("Z"), let time = Timestamp(iso8601: iso + "Z") { return time }
        if let number = Int64(text) {
            // Ten-digit values are seconds, thirteen-digit ones milliseconds; before 1970 is no export's.
            guard number >= 0 else { return nil }
            return number > 100_000_000_000 ? Timestamp(plausibleMilliseconds: number) : Timestamp(plausibleSeconds: number)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        for format in ["yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm:ss.SSS", "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd HH:mm:ss 'UTC'"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return Timestamp(milliseconds: Int64(date.timeIntervalSince1970 * 1000)) }
        }
        return nil
    }
}
