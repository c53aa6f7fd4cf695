import Attribution
import SQLValues
import StoreContracts

/// The raw export's reads and its bookkeeping, on either backend.
struct Exports<Source: SessionSource>: ExportStore {
    let source: Source

    func save(_ settings: ExportSettings) throws {
        try source.writeSession { session in
            try session.run(
                ExportRepository.upsertSettings, settings.projectID, settings.destination, settings.endpoint, settings.region,
                settings.accessKeyID, settings.secretAccessKey, JSONText.encode(settings.formats.map(\.rawValue)),
                JSONText.encode(settings.tables.map(\.rawValue)), settings.firstHour, settings.enabled, settings.createdAt.milliseconds,
                settings.updatedAt.milliseconds)
        }
    }

    func settings(projectID: String) throws -> ExportSettings? {
        try source.read { session in
            try session.queryOne("SELECT \(ExportRepository.settingsColumns) FROM export_settings WHERE project_id = ?", projectID) {
                ExportRepository.settings($0)
            }
        }
    }

    func allSettings() throws -> [ExportSettings] {
        try source.read { session in
            try session.query("SELECT \(ExportRepository.settingsColumns) FROM export_settings ORDER BY project_id") {
                ExportRepository.settings($0)
            }
        }
    }

    func deleteSettings(projectID: String) throws -> Bool {
        try source.writeSession { session in try session.run("DELETE FROM export_settings WHERE project_id = ?", projectID) > 0 }
    }

    func claim(projectID: String, node: String, until: Timestamp, at now: Timestamp, replacing: String?) throws -> Bool {
        try source.writeSession { session in
            try session.run(
                """
                UPDATE export_settings SET claimed_by = ?, claimed_until = ?
                WHERE project_id = ? AND (claimed_by IS NULL OR claimed_by = ? OR claimed_by = ? OR claimed_until < ?)
                """, node, until.milliseconds, projectID, node, replacing ?? node, now.milliseconds) > 0
        }
    }

    func holder(projectID: String, at now: Timestamp) throws -> String? {
        try source.read { session in
            try session.queryOne(
                "SELECT claimed_by FROM export_settings WHERE project_id = ? AND claimed_until >= ?", projectID, now.milliseconds
            ) { $0.optionalString(0) } ?? nil
        }
    }

    func release(projectID: String, node: String) throws {
        try source.writeSession { session in
            _ = try session.run(
                "UPDATE export_settings SET claimed_by = NULL, claimed_until = NULL WHERE project_id = ? AND claimed_by = ?", projectID, node)
        }
    }

    func rows(
        of table: ExportTable, projectID: String, from: Int64, to: Int64, pageSize: Int, _ visit: ([ExportValue]) throws -> Void
    ) throws {
        let read = ExportRepository.read(table)
        var cursor: [SQLValue]?
        while true {
            var values = read.range(projectID, from, to)
            if let cursor { values += cursor }
            values.append(.integer(Int64(pageSize)))
            var last: [SQLValue]?
            var page: [[ExportValue]] = []
            page.reserveCapacity(pageSize)
            // The page is read, then written out with the connection given back: the export's
            // thread runs at the lowest priority, and must not keep a reader from the requests
            // while it waits for the CPU.
            try source.read { session in
                _ = try session.query(cursor == nil ? read.firstPage : read.laterPage, values: values) { row -> Void in
                    var keys: [SQLValue] = []
                    for (index, kind) in read.orderKinds.enumerated() {
                        let column = Int32(index)
                        keys.append(kind == .integer ? .integer(row.int(column)) : .text(row.string(column)))
                    }
                    last = keys
                    page.append(ExportRepository.values(row, table: table, offset: read.orderKinds.count))
                }
            }
            for values in page { try visit(values) }
            let count = page.count
            guard count == pageSize, let last else { return }
            cursor = last
        }
    }

    func count(of table: ExportTable, projectID: String, from: Int64, to: Int64) throws -> Int {
        let read = ExportRepository.read(table)
        return try source.read { session in
            try session.query(read.count, values: read.range(projectID, from, to)) { Int($0.int(0)) }.first ?? 0
        }
    }

    func exportedHour(projectID: String, hour: Int64) throws -> ExportedHour? {
        try source.read { session in
            try session.queryOne("SELECT \(ExportRepository.hourColumns) FROM export_hours WHERE project_id = ? AND hour = ?", projectID, hour) {
                ExportRepository.hour($0)
            }
        }
    }

    func exportedHours(projectID: String, from: Int64, to: Int64) throws -> [ExportedHour] {
        try source.read { session in
            try session.query(
                """
                SELECT \(ExportRepository.hourColumns) FROM export_hours
                WHERE project_id = ? AND hour >= ? AND hour < ? AND completed_at IS NOT NULL ORDER BY hour
                """, projectID, from, to
            ) { ExportRepository.hour($0) }
        }
    }

    func beginHour(projectID: String, hour: Int64, version: Int) throws {
        try source.writeSession { session in
            try session.run(
                """
                INSERT INTO export_hours (project_id, hour, version) VALUES (?, ?, ?)
                ON CONFLICT (project_id, hour) DO UPDATE SET version = excluded.version, manifest = NULL, row_counts = NULL,
                    completed_at = NULL
                """, projectID, hour, version)
            try session.run("DELETE FROM export_files WHERE project_id = ? AND hour = ? AND version <> ?", projectID, hour, version)
        }
    }

    func files(projectID: String, hour: Int64, version: Int) throws -> [ExportedFile] {
        try source.read { session in
            try session.query(
                """
                SELECT table_name, format, path, row_count, bytes, sha256 FROM export_files
                WHERE project_id = ? AND hour = ? AND version = ? ORDER BY table_name, format
                """, projectID, hour, version
            ) { row -> ExportedFile? in
                guard let table = ExportTable(rawValue: row.string(0)), let format = ExportFormat(rawValue: row.string(1)) else { return nil }
                return ExportedFile(
                    table: table, format: format, path: row.string(2), rows: Int(row.int(3)), bytes: Int(row.int(4)), sha256: row.string(5))
            }.compactMap { $0 }
        }
    }

    func recordFile(_ file: ExportedFile, projectID: String, hour: Int64, version: Int) throws {
        try source.writeSession { session in
            try session.run(
                """
                INSERT INTO export_files (project_id, hour, version, table_name, format, path, row_count, bytes, sha256)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (project_id, hour, table_name, format) DO UPDATE SET version = excluded.version, path = excluded.path,
                    row_count = excluded.row_count, bytes = excluded.bytes, sha256 = excluded.sha256
                """, projectID, hour, version, file.table.rawValue, file.format.rawValue, file.path, file.rows, file.bytes, file.sha256)
        }
    }

    func completeHour(projectID: String, hour: Int64, version: Int, manifest: String, rows: [ExportTable: Int], at time: Timestamp) throws {
        let counts = JSONText.encode(Dictionary(uniqueKeysWithValues: rows.map { ($0.key.rawValue, String($0.value)) }))
        try source.writeSession { session in
            try session.run(
                "UPDATE export_hours SET manifest = ?, row_counts = ?, completed_at = ? WHERE project_id = ? AND hour = ? AND version = ?",
                manifest, counts, time.milliseconds, projectID, hour, version)
        }
    }

    func deleteErasures(before time: Int64) throws -> Int {
        try source.writeSession { session in try session.run("DELETE FROM erasures WHERE erased_at < ?", time) }
    }

    func setUpload(projectID: String, path: String, uploadID: String?) throws {
        try source.writeSession { session in
            if let uploadID {
                try session.run(
                    """
                    INSERT INTO export_uploads (project_id, path, upload_id) VALUES (?, ?, ?)
                    ON CONFLICT (project_id, path) DO UPDATE SET upload_id = excluded.upload_id
                    """, projectID, path, uploadID)
            } else {
                try session.run("DELETE FROM export_uploads WHERE project_id = ? AND path = ?", projectID, path)
            }
        }
    }

    func uploads(projectID: String) throws -> [(path: String, uploadID: String)] {
        try source.read { session in
            try session.query("SELECT path, upload_id FROM export_uploads WHERE project_id = ? ORDER BY path", projectID) {
                (path: $0.string(0), uploadID: $0.string(1))
            }
        }
    }
}
