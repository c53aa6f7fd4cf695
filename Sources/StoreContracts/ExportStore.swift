public import Attribution

/// A project's raw export (docs/export.md): where its files go, and which hours went there.
public struct ExportSettings: Sendable, Equatable {
    public var projectID: String
    /// `s3://bucket/prefix` or `file:///absolute/path`.
    public var destination: String
    /// An S3-compatible endpoint (MinIO, R2, GCS interoperability…); AWS's own when nil.
    public var endpoint: String?
    public var region: String
    public var accessKeyID: String?
    public var secretAccessKey: String?
    public var formats: [ExportFormat]
    public var tables: [ExportTable]
    /// The first hour exported when the export was set up (its start, milliseconds): earlier hours
    /// only through a backfill.
    public var firstHour: Int64
    public var enabled: Bool
    public var createdAt: Timestamp
    public var updatedAt: Timestamp

    public init(
        projectID: String, destination: String, endpoint: String?, region: String, accessKeyID: String?, secretAccessKey: String?,
        formats: [ExportFormat], tables: [ExportTable], firstHour: Int64, enabled: Bool, createdAt: Timestamp, updatedAt: Timestamp
    ) {
        self.projectID = projectID
        self.destination = destination
        self.endpoint = endpoint
        self.region = region
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.formats = formats
        self.tables = tables
        self.firstHour = firstHour
        self.enabled = enabled
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

public enum ExportFormat: String, CaseIterable, Sendable, Codable {
    case csv, ndjson

    public var fileExtension: String { self == .csv ? "csv.gz" : "ndjson.gz" }
}

/// One hour's export as it stands: the manifest's version, and when it was completed.
public struct ExportedHour: Sendable, Equatable {
    public let projectID: String
    /// The hour's start, milliseconds since the epoch (UTC).
    public let hour: Int64
    public let version: Int
    /// The manifest's JSON once every file of this version is written; nil while under way.
    public let manifest: String?
    /// Rows per table in the manifest (what the recount compares with).
    public let rows: [ExportTable: Int]
    public let completedAt: Timestamp?

    public init(projectID: String, hour: Int64, version: Int, manifest: String?, rows: [ExportTable: Int], completedAt: Timestamp?) {
        self.projectID = projectID
        self.hour = hour
        self.version = version
        self.manifest = manifest
        self.rows = rows
        self.completedAt = completedAt
    }
}

/// A file of an hour's version that reached its destination: a run that resumes skips it.
public struct ExportedFile: Sendable, Equatable {
    public let table: ExportTable
    public let format: ExportFormat
    public let path: String
    public let rows: Int
    public let bytes: Int
    public let sha256: String

    public init(table: ExportTable, format: ExportFormat, path: String, rows: Int, bytes: Int, sha256: String) {
        self.table = table
        self.format = format
        self.path = path
        self.rows = rows
        self.bytes = bytes
        self.sha256 = sha256
    }
}

public protocol ExportStore: Sendable {
    func save(_ settings: ExportSettings) throws
    func settings(projectID: String) throws -> ExportSettings?
    func allSettings() throws -> [ExportSettings]
    func deleteSettings(projectID: String) throws -> Bool
    /// Takes the project's export for `node` until `until`, unless another node holds it (but
    /// `replacing`, a holder known to be gone).
    func claim(projectID: String, node: String, until: Timestamp, at now: Timestamp, replacing: String?) throws -> Bool
    /// The node holding the project's export, if any.
    func holder(projectID: String, at now: Timestamp) throws -> String?
    func release(projectID: String, node: String) throws

    /// Calls `visit` with the table's rows of [from, to) (milliseconds) in a fixed order, in
    /// pages of `pageSize` rows (each page its own read, so no read is held for an hour of rows).
    func rows(
        of table: ExportTable, projectID: String, from: Int64, to: Int64, pageSize: Int, _ visit: ([ExportValue]) throws -> Void
    ) throws
    /// How many rows `rows` visits.
    func count(of table: ExportTable, projectID: String, from: Int64, to: Int64) throws -> Int

    func exportedHour(projectID: String, hour: Int64) throws -> ExportedHour?
    /// The project's hours in [from, to) that have a completed version.
    func exportedHours(projectID: String, from: Int64, to: Int64) throws -> [ExportedHour]
    /// Starts `version` of an hour (forgetting the files of an earlier version).
    func beginHour(projectID: String, hour: Int64, version: Int) throws
    func files(projectID: String, hour: Int64, version: Int) throws -> [ExportedFile]
    func recordFile(_ file: ExportedFile, projectID: String, hour: Int64, version: Int) throws
    /// Marks the hour's version complete with its manifest.
    func completeHour(projectID: String, hour: Int64, version: Int, manifest: String, rows: [ExportTable: Int], at time: Timestamp) throws
    /// Deletes the erasure rows older than `time` (milliseconds); how many.
    func deleteErasures(before time: Int64) throws -> Int
    /// A multipart upload under way for a file (so a run after a crash aborts it), or nil.
    func setUpload(projectID: String, path: String, uploadID: String?) throws
    func uploads(projectID: String) throws -> [(path: String, uploadID: String)]
}
