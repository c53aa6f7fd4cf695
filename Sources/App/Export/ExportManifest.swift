import Attribution
import JSON
import StoreContracts

/// An hour's manifest, written after its files: which files make the hour's version, their rows,
/// sizes and SHA-256 digests, and the schema they follow. A warehouse loads an hour once its
/// manifest is there, and replaces it when a higher version arrives.
struct ExportManifest {
    let projectID: String
    let hour: ExportHour
    let version: Int
    let exportedAt: Timestamp
    let files: [ExportedFile]
    let tables: [ExportTable]

    var json: String {
        let described: [JSONValue] = files.sorted { ($0.table.rawValue, $0.format.rawValue) < ($1.table.rawValue, $1.format.rawValue) }
            .map { file in
                .object([
                    "table": .string(file.table.rawValue), "format": .string(file.format.rawValue), "path": .string(file.path),
                    "rows": .number(Double(file.rows)), "bytes": .number(Double(file.bytes)), "sha256": .string(file.sha256),
                ])
            }
        var rows: [String: JSONValue] = [:]
        var columns: [String: JSONValue] = [:]
        for table in tables {
            rows[table.rawValue] = .number(Double(files.first { $0.table == table }?.rows ?? 0))
            columns[table.rawValue] = .array(table.columns.map { .object(["name": .string($0.name), "type": .string($0.kind.rawValue)]) })
        }
        let object: JSONValue = .object([
            "project_id": .string(projectID), "hour": .string(hour.text), "version": .number(Double(version)),
            "schema_version": .number(Double(ExportTable.schemaVersion)), "exported_at": .string(exportedAt.iso8601),
            "files": .array(described), "rows": .object(rows), "columns": .object(columns),
        ])
        return String(decoding: object.serialized(), as: UTF8.self)
    }
}
