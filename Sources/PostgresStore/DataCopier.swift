internal import CSQLite
import Foundation
public import PostgresClient
import SQLValues
@_spi(StoreInternals) public import Store
import StoreContracts

/// `attributiond migrate-data`: copies a SQLite deployment's rows into PostgreSQL, table by table
/// in foreign-key order, in batches of one multi-row `INSERT … ON CONFLICT DO NOTHING` each, so a
/// copy that stopped halfway is finished by running it again (rows already there are skipped,
/// none doubled). Each table is read in primary-key order by keyset (never OFFSET), and the copy
/// ends with both sides' row counts compared per table.
public struct DataCopier {
    /// One table's outcome.
    public struct TableCount: Sendable, Equatable {
        public let table: String
        public let sqlite: Int
        public let postgres: Int
    }

    /// Parents before children (the foreign keys of migrations/*.sql).
    public static let tables = [
        "projects", "api_keys", "signing_keys", "templates", "links", "clicks", "installs", "users", "events", "payments",
        "skan_state", "user_event_installs", "webhook_endpoints", "outbox_jobs", "outbox_new", "postback_templates",
        "apple_ads_claims", "apple_ads_credentials", "apple_ads_names", "dashboard_users", "dashboard_sessions",
        "rollup_project_hours", "rollup_link_days", "rollup_money", "rollup_link_hours", "rollup_link_hour_money", "rollup_tallies",
        "skan_postbacks", "project_domains", "domain_certificates", "acme_accounts", "acme_challenges", "server_admin_key", "clicks_pruned",
        "ad_platform_connections", "ad_platform_claims", "install_event_names", "install_active_days",
        "cost_rows", "fx_rates", "revenue_sources", "store_notifications", "cost_sources", "export_settings", "export_hours",
        "export_files", "export_uploads", "erasures",
    ]

    /// SQLite's tables that hold no user data and are not copied: the schema's own record, the
    /// change feed other processes read, the outbox's read positions (PostgreSQL keeps its own),
    /// and the rollups' folded bookkeeping (folded before the copy). Every other table is in
    /// `tables`: a test fails when a new one is in neither list.
    public static let notCopied: Set<String> = [
        "schema_migrations", "change_log", "outbox_cursors", "rollup_folded", "sqlite_sequence", "sqlite_stat1", "sqlite_stat4",
    ]

    let source: Database
    let target: PGConnection
    /// Rows per INSERT (fewer when a table's columns would pass PostgreSQL's 65,535 parameters).
    let batchRows: Int

    public init(source: Database, target: PGConnection, batchRows: Int = 1000) {
        self.source = source
        self.target = target
        self.batchRows = max(1, batchRows)
    }

    /// Copies every table, then counts both sides.
    public func copy() throws -> [TableCount] {
        try PGMigrator.migrate(target)
        // SQLite keeps the hours it has not folded yet in the link hours alone (migration 0022);
        // PostgreSQL's rollups hold every hour in every table.
        let lastHour =
            try source.read { connection in
                try connection.queryOne(
                    """
                    SELECT max(coalesce((SELECT max(hour) FROM rollup_link_hours), -1), coalesce((SELECT max(hour) FROM rollup_link_hour_money), -1))
                    """
                ) { $0.int(0) }
            } ?? -1
        try source.writer.foldRollups(through: lastHour)
        // The rollups arrive as SQLite counted them (clicks that retention deleted included); rows
        // copied are not counted again (nothing in PostgreSQL counts rows it is handed).
        for table in Self.tables { try copy(table) }
        for (table, column) in [("clicks", "id"), ("outbox_new", "seq")] {
            // Rows arrived with their ids: the identity continues after the largest.
            _ = try target.query(
                "SELECT setval(pg_get_serial_sequence('\(table)', '\(column)'), coalesce((SELECT max(\(column)) FROM \(table)), 0) + 1, false)")
        }
        return try counts()
    }

    /// Both sides' row counts, table by table.
    public func counts() throws -> [TableCount] {
        try Self.tables.map { table in
            let sqlite = try source.read { try $0.queryOne("SELECT count(*) FROM \(table)") { Int($0.int(0)) } } ?? 0
            let postgres = Int(try target.query("SELECT count(*) FROM \(table)").integer(0, 0) ?? 0)
            return TableCount(table: table, sqlite: sqlite, postgres: postgres)
        }
    }

    private struct Layout {
        var columns: [String] = []
        /// PostgreSQL's type of each column: booleans and bytes are written differently.
        var types: [String] = []
        /// The columns the keyset pages by: the primary key, or `rowid`.
        var key: [String] = []
        var keyIsRowID = false
    }

    private func layout(_ table: String) throws -> Layout {
        var layout = Layout()
        let info = try source.read { connection in
            try connection.query("SELECT name, pk FROM pragma_table_info(?) ORDER BY cid", table) { ($0.string(0), Int($0.int(1))) }
        }
        let withoutRowID = try source.read { connection in
            try connection.queryOne("SELECT sql LIKE '%WITHOUT ROWID%' FROM sqlite_master WHERE name = ?", table) { $0.bool(0) } ?? false
        }
        let types = try target.query(
            "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1",
            [.text(table)])
        let typeOf = Dictionary(uniqueKeysWithValues: types.rows.map { ($0[0]!, $0[1]!) })
        for (name, _) in info {
            guard let type = typeOf[name] else {
                throw PGMigrationError(
                    migration: "migrate-data",
                    underlying: PGError(
                        sqlState: nil,
                        message: "PostgreSQL's \(table) has no column \(name): its schema is older than the SQLite file's"))
            }
            layout.columns.append(name)
            layout.types.append(type)
        }
        if withoutRowID {
            layout.key = info.filter { $0.1 > 0 }.sorted { $0.1 < $1.1 }.map(\.0)
        } else {
            layout.key = ["rowid"]
            layout.keyIsRowID = true
        }
        return layout
    }

    private func copy(_ table: String) throws {
        let layout = try layout(table)
        let rowsPerInsert = min(batchRows, 60_000 / max(1, layout.columns.count))
        let selectList = (layout.keyIsRowID ? ["rowid"] : []) + layout.columns
        let keyList = layout.key.joined(separator: ", ")
        let first = "SELECT \(selectList.joined(separator: ", ")) FROM \(table) ORDER BY \(keyList) LIMIT \(rowsPerInsert)"
        let next = """
            SELECT \(selectList.joined(separator: ", ")) FROM \(table) WHERE (\(keyList)) > (\(layout.key.map { _ in "?" }.joined(separator: ", ")))
            ORDER BY \(keyList) LIMIT \(rowsPerInsert)
            """
        let override = table == "clicks" ? " OVERRIDING SYSTEM VALUE" : ""
        var lastKey: [any SQLiteValue] = []
        while true {
            let (values, rowCount, key) = try source.read { connection in
                try Self.page(connection, sql: lastKey.isEmpty ? first : next, bind: lastKey, layout: layout)
            }
            if rowCount == 0 { break }
            let width = layout.columns.count
            let tuples = (0..<rowCount).map { row in
                "(" + (0..<width).map { "$\(row * width + $0 + 1)" }.joined(separator: ", ") + ")"
            }
            try target.execute("BEGIN")
            do {
                _ = try target.query(
                    "INSERT INTO \(table) (\(layout.columns.map { $0 == "window" ? "\"window\"" : $0 }.joined(separator: ", ")))"
                        + override + " VALUES " + tuples.joined(separator: ", ") + " ON CONFLICT DO NOTHING", values)
                try target.execute("COMMIT")
            } catch {
                _ = try? target.execute("ROLLBACK")
                throw PGMigrationError(migration: "migrate-data \(table)", underlying: error)
            }
            lastKey = key
            if rowCount < rowsPerInsert { break }
        }
    }

    /// One page of rows as PostgreSQL parameters, and the key of its last row.
    private static func page(
        _ connection: SQLiteConnection, sql: String, bind key: [any SQLiteValue],
        layout: Layout
    ) throws -> ([SQLValue], Int, [any SQLiteValue]) {
        let statement = try connection.statement(sql)
        defer { statement.reset() }
        for (index, value) in key.enumerated() { _ = value.bind(to: statement.pointer, at: Int32(index + 1)) }
        let offset: Int32 = layout.keyIsRowID ? 1 : 0
        var values: [SQLValue] = []
        var rows = 0
        var lastKey: [any SQLiteValue] = []
        while try statement.step() {
            let row = Row(statement: statement)
            rows += 1
            for (index, type) in layout.types.enumerated() {
                let column = Int32(index) + offset
                if row.isNull(column) {
                    values.append(.null)
                    continue
                }
                switch type {
                case "boolean": values.append(.boolean(row.int(column) != 0))
                case "bytea": values.append(.bytes(row.blob(column)))
                default: values.append(.text(row.string(column)))
                }
            }
            lastKey =
                layout.keyIsRowID
                ? [row.int(0)]
                : layout.key.map { name in
                    let column = Int32(layout.columns.firstIndex(of: name)!)
                    switch sqlite3_column_type(statement.pointer, column) {
                    case SQLITE_INTEGER: return row.int(column) as any SQLiteValue
                    case SQLITE_BLOB: return row.blob(column) as any SQLiteValue
                    default: return row.string(column) as any SQLiteValue
                    }
                }
        }
        return (values, rows, lastKey)
    }
}
