import Foundation
public import JSON

/// A CSV of Branch links to move over (docs/migrate-from-branch.md, "Moving links over"): a
/// header, then one link per row, named by its `url` (Branch's short link, `https://shop.app.link/summer`;
/// also `link` or `short_url`) or its `alias`, with its `data` (a JSON object's text), `channel`,
/// `feature`, `campaign`, `stage`, `tags` (a JSON array or `;`-separated) and `title`. Each row is
/// read into a link's fields or refused naming its column.
public enum BranchLinkExport {
    public static let columns = ["url", "link", "short_url", "alias", "data", "channel", "feature", "campaign", "stage", "tags", "title"]

    public struct Row: Sendable {
        public let line: Int
        /// The short code: the alias, else the URL's last path segment.
        public let code: String
        /// The URL as given, or the alias: what the report names the row by.
        public let shownAs: String
        public let data: [String: JSONValue]
        public let utm: UTM
        public let title: String?
    }

    public struct Refusal: Error, Sendable, Equatable {
        public let line: Int
        public let shownAs: String?
        public let column: String?
        public let reason: String
    }

    /// The rows of `bytes`, each parsed or refused; a header that cannot be read is one refusal
    /// for line 1 and no rows.
    public static func rows(_ bytes: [UInt8]) -> [Result<Row, Refusal>] {
        let records: [(line: Int, fields: [String])]
        do {
            records = try CSVTable.records(bytes)
        } catch {
            return [.failure(Refusal(line: error.line, shownAs: nil, column: nil, reason: error.reason))]
        }
        guard let header = records.first else { return [.failure(Refusal(line: 1, shownAs: nil, column: nil, reason: "the file is empty"))] }
        let names = header.fields.map { $0.trimmingWhitespace().lowercased() }
        if let unknown = names.first(where: { !columns.contains($0) }) {
            return [
                .failure(
                    Refusal(
                        line: header.line, shownAs: nil, column: unknown, reason: "unknown column; the columns are \(columns.joined(separator: ", "))"
                    ))
            ]
        }
        guard names.contains(where: { ["url", "link", "short_url", "alias"].contains($0) }) else {
            return [
                .failure(Refusal(line: header.line, shownAs: nil, column: "url", reason: "the header names no url, link, short_url or alias column"))
            ]
        }
        return records.dropFirst().map { record in
            var fields: [String: String] = [:]
            for (name, value) in zip(names, record.fields) { fields[name] = value.trimmingWhitespace() }
            return row(line: record.line, fields)
        }
    }

    static func row(line: Int, _ fields: [String: String]) -> Result<Row, Refusal> {
        let url = [fields["url"], fields["link"], fields["short_url"]].compactMap { $0 }.first { !$0.isEmpty }
        let alias = fields["alias"].flatMap { $0.isEmpty ? nil : $0 }
        let shownAs = url ?? alias ?? ""
        func refuse(_ column: String?, _ reason: String) -> Result<Row, Refusal> {
            .failure(Refusal(line: line, shownAs: shownAs.isEmpty ? nil : shownAs, column: column, reason: reason))
        }
        var code = alias
        if code == nil, let url {
            guard let schemeEnd = url.range(of: "://"), url.lowercased().hasPrefix("http") else { return refuse("url", "must be an http(s) link") }
            let afterHost = url[schemeEnd.upperBound...].drop { $0 != "/" }
            let path = afterHost.prefix { $0 != "?" && $0 != "#" }
            code = path.split(separator: "/").last.map(String.init)
        }
        guard let code, !code.isEmpty else { return refuse(alias == nil ? "url" : "alias", "names no link (a short code in the path, or an alias)") }
        guard ShortCode.isValidCustom(code) else {
            return refuse(
                alias == nil ? "url" : "alias", "'\(code.prefix(64))' is not a short code this server can serve (3 to 64 of A-Z, a-z, 0-9, '_', '-')")
        }
        var data: [String: JSONValue] = [:]
        if let text = fields["data"], !text.isEmpty {
            guard case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
                return refuse("data", "must be a JSON object")
            }
            data = object
        }
        var utm = UTM()
        for (column, field) in [("channel", \UTM.source), ("feature", \UTM.medium), ("campaign", \UTM.campaign), ("stage", \UTM.content)]
            as [(String, WritableKeyPath<UTM, String?>)]
        {
            if let value = fields[column], !value.isEmpty { utm[keyPath: field] = value }
        }
        if let text = fields["tags"], !text.isEmpty {
            let tags: [String]
            if text.hasPrefix("["), case .array(let values)? = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) {
                tags = values.compactMap { if case .string(let tag) = $0 { tag } else { nil } }
            } else {
                tags = text.split(separator: ";").map { String($0).trimmingWhitespace() }.filter { !$0.isEmpty }
            }
            if !tags.isEmpty { utm.term = tags.joined(separator: ",") }
        }
        return .success(Row(line: line, code: code, shownAs: shownAs, data: data, utm: utm, title: fields["title"].flatMap { $0.isEmpty ? nil : $0 }))
    }
}
