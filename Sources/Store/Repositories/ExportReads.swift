import Attribution
import SQLValues
import StoreContracts

/// Erasure's and the export's SQL, for both backends.
enum ExportRepository {
    /// How one table's hour is read: its rows of a time range in a fixed order, a page at a time
    /// (keyset pagination on `order`, so a page never re-reads the ones before it).
    struct Read {
        let firstPage: String
        let laterPage: String
        let count: String
        /// The ordering columns, read first in every row (the next page's cursor).
        let orderKinds: [ExportColumn.Kind]
        let range: @Sendable (_ projectID: String, _ from: Int64, _ to: Int64) -> [SQLValue]
    }

    /// What each table reads from. `time` places a row in its hour: when it was stored (clicks,
    /// installs, postbacks, erasures), arrived (events, notifications) or last changed (cost rows,
    /// claims, which a later answer or import rewrites). `order` is an index's own order, so no
    /// hour is sorted (`ExportPlanTests`).
    private struct Shape {
        let from: String
        let time: String
        let order: [(sql: String, kind: ExportColumn.Kind)]
        var filter = ""
        /// Rows whose time-ordered id was made at their `time` (installs, events, payments,
        /// erasures): the id's index is their time index, so their write paths keep one index
        /// fewer (docs/export.md).
        var byID = false
        /// The project named as `(project_id || '')`: an index that starts with the project (the
        /// click table's by address) would otherwise be taken over the time index.
        var projectUnindexed = false
    }

    private static func shape(_ table: ExportTable) -> Shape {
        let byID: [(sql: String, kind: ExportColumn.Kind)] = [("id", .text)]
        switch table {
        case .clicks:
            return Shape(from: "clicks", time: "created_at", order: [("created_at", .integer), ("id", .integer)], projectUnindexed: true)
        case .installs: return Shape(from: "installs", time: "created_at", order: byID, byID: true)
        case .events: return Shape(from: "events", time: "received_at", order: byID, byID: true)
        case .payments: return Shape(from: "payments", time: "created_at", order: byID, byID: true)
        case .verifiedRevenue:
            return Shape(
                from: "store_notifications", time: "received_at",
                order: [("received_at", .integer), ("source", .text), ("notification_id", .text)])
        case .cost:
            return Shape(
                from: "cost_rows", time: "updated_at",
                order: [
                    ("updated_at", .integer), ("day", .text), ("network", .text), ("campaign_key", .text), ("adgroup_id", .text),
                    ("ad_id", .text),
                ])
        case .skanPostbacks:
            return Shape(from: "skan_postbacks", time: "received_at", order: [("received_at", .integer), ("id", .text)])
        case .appleAdsClaims:
            let time = "coalesce(answered_at, token_received_at)"
            return Shape(from: "apple_ads_claims", time: time, order: [(time, .integer), ("install_id", .text)])
        case .adPlatformClaims:
            return Shape(
                from: "ad_platform_claims", time: "received_at",
                order: [("received_at", .integer), ("install_id", .text), ("source", .text)])
        case .rejectedInstalls:
            return Shape(from: "installs", time: "created_at", order: byID, filter: " AND rejected_reasons IS NOT NULL", byID: true)
        case .erasures: return Shape(from: "erasures", time: "erased_at", order: byID, byID: true)
        }
    }

    private static let reads: [ExportTable: Read] = Dictionary(uniqueKeysWithValues: ExportTable.allCases.map { ($0, makeRead($0)) })

    static func read(_ table: ExportTable) -> Read { reads[table]! }

    private static func makeRead(_ table: ExportTable) -> Read {
        let shape = shape(table)
        let columns = (shape.order.map(\.sql) + table.columns.map(\.sql)).joined(separator: ", ")
        let condition: String
        let range: @Sendable (String, Int64, Int64) -> [SQLValue]
        if shape.byID {
            condition = "id >= ? AND id < ? AND (project_id || '') = ?"
            range = { projectID, from, to in
                [
                    .text(TimeOrderedID.lowerBound(milliseconds: from)), .text(TimeOrderedID.lowerBound(milliseconds: to)),
                    .text(projectID),
                ]
            }
        } else {
            let project = shape.projectUnindexed ? "(project_id || '')" : "project_id"
            condition = "\(project) = ? AND \(shape.time) >= ? AND \(shape.time) < ?"
            range = { projectID, from, to in [.text(projectID), .integer(from), .integer(to)] }
        }
        let order = shape.order.map(\.sql).joined(separator: ", ")
        let placeholders = shape.order.map { _ in "?" }.joined(separator: ", ")
        let base = "SELECT \(columns) FROM \(shape.from) WHERE \(condition)\(shape.filter)"
        return Read(
            firstPage: "\(base) ORDER BY \(order) LIMIT ?",
            laterPage: "\(base) AND (\(order)) > (\(placeholders)) ORDER BY \(order) LIMIT ?",
            count: "SELECT count(*) FROM \(shape.from) WHERE \(condition)\(shape.filter)",
            orderKinds: shape.order.map(\.kind), range: range)
    }

    static func values(_ row: some ColumnReader, table: ExportTable, offset: Int) -> [ExportValue] {
        var values: [ExportValue] = []
        values.reserveCapacity(table.columns.count)
        for (index, column) in table.columns.enumerated() {
            let position = Int32(offset + index)
            switch column.kind {
            case .text, .json: values.append(row.optionalString(position).map(ExportValue.text) ?? .null)
            case .integer, .timestamp, .boolean: values.append(row.optionalInt(position).map(ExportValue.integer) ?? .null)
            case .real: values.append(row.optionalDouble(position).map(ExportValue.real) ?? .null)
            }
        }
        return values
    }

    static let settingsColumns = """
        project_id, destination, endpoint, region, access_key_id, secret_access_key, formats, tables, first_hour, enabled, created_at,
        updated_at
        """
    static let upsertSettings = """
        INSERT INTO export_settings (\(settingsColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (project_id) DO UPDATE SET destination = excluded.destination, endpoint = excluded.endpoint,
            region = excluded.region, access_key_id = excluded.access_key_id, secret_access_key = excluded.secret_access_key,
            formats = excluded.formats, tables = excluded.tables, first_hour = excluded.first_hour, enabled = excluded.enabled,
            updated_at = excluded.updated_at
        """

    static func settings(_ row: some ColumnReader) -> ExportSettings {
        ExportSettings(
            projectID: row.string(0), destination: row.string(1), endpoint: row.optionalString(2), region: row.string(3),
            accessKeyID: row.optionalString(4), secretAccessKey: row.optionalString(5),
            formats: JSONText.decodeStrings(row.string(6)).compactMap(ExportFormat.init(rawValue:)),
            tables: JSONText.decodeStrings(row.string(7)).compactMap(ExportTable.init(rawValue:)), firstHour: row.int(8),
            enabled: row.bool(9), createdAt: Timestamp(milliseconds: row.int(10)), updatedAt: Timestamp(milliseconds: row.int(11)))
    }

    static let hourColumns = "project_id, hour, version, manifest, row_counts, completed_at"

    static func hour(_ row: some ColumnReader) -> ExportedHour {
        let counts = row.optionalString(4).map(JSONText.decodeMap) ?? [:]
        var rows: [ExportTable: Int] = [:]
        for (name, count) in counts { if let table = ExportTable(rawValue: name), let count = Int(count) { rows[table] = count } }
        return ExportedHour(
            projectID: row.string(0), hour: row.int(1), version: Int(row.int(2)), manifest: row.optionalString(3), rows: rows,
            completedAt: row.optionalInt(5).map { Timestamp(milliseconds: $0) })
    }
}
