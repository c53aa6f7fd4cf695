public import Attribution
import Cryptography
import Foundation
import Gzip
import JSON
public import StoreContracts
import Synchronization

/// The raw export (docs/export.md): each closed hour of a project's tables, as gzip CSV and NDJSON
/// files under `table=…/date=…/hour=…/`, and a manifest per hour written last. A run that stops
/// part-way (a crash, a refused upload) resumes at the next: the files already put are skipped,
/// the multipart upload it left is aborted, and the files it had not put are made again.
public final class ExportService: Sendable {
    let store: any StoreBackend
    let clocks: ProjectClocks
    /// S3 signs with the real time, whatever a test-mode project's clock says.
    let clock: any Clock
    /// Set by the composition (uploads take longer than webhooks: a transport of their own).
    private let transport = Mutex<(any OutboundTransport, partSizeMiB: Int)?>(nil)
    let scratch: String
    /// Rows per read: each page its own read, so no read holds an hour of rows.
    let pageSize: Int
    /// How long after an hour ends it is taken as closed on the server's clock (a write under way
    /// commits within it). A test-mode project's hours close as its clock passes their end.
    let closingDelay: Int64 = 60_000
    /// How long erasure rows are kept for the hours that carry them to be written again.
    static let erasureRetentionDays: Int64 = 35

    /// One run at a time per project: in this process, and across processes and nodes by a
    /// lease in the database (a crashed holder's runs out after `leaseMilliseconds`).
    private let running = Mutex<Set<String>>([])
    private let node = ExportLease.node()
    let leaseMilliseconds: Int64 = 5 * 60_000

    /// - Parameter scratch: where each file is written before it is put (removed once put).
    public init(store: any StoreBackend, clocks: ProjectClocks, clock: any Clock, scratch: String, pageSize: Int = 5_000) {
        self.store = store
        self.clocks = clocks
        self.clock = clock
        self.scratch = scratch
        self.pageSize = pageSize
    }

    /// The system's temporary directory, per process.
    public static var defaultScratch: String {
        NSTemporaryDirectory() + "attributiond-export-\(ProcessInfo.processInfo.processIdentifier)"
    }

    /// The transport S3 requests go out through, and the size of a multipart upload's parts.
    public func use(_ transport: any OutboundTransport, partSizeMiB: Int = 16) {
        self.transport.withLock { $0 = (transport, partSizeMiB) }
    }

    // MARK: Settings

    public func save(_ fields: ExportFields, project: Project) throws -> ExportSettings {
        let existing = try store.exports.settings(projectID: project.id)
        let settings = try ExportSettings.make(fields, projectID: project.id, existing: existing, at: clocks.clock(for: project).now())
        try store.exports.save(settings)
        return settings
    }

    public func settings(project: Project) throws -> ExportSettings {
        guard let settings = try store.exports.settings(projectID: project.id) else {
            throw AppError.notFound("project \(project.id) has no export set up")
        }
        return settings
    }

    public func delete(project: Project) throws {
        guard try store.exports.deleteSettings(projectID: project.id) else { throw AppError.notFound("project \(project.id) has no export set up") }
    }

    public func hours(project: Project, from: Int64, to: Int64) throws -> [ExportedHour] {
        try store.exports.exportedHours(projectID: project.id, from: from, to: to)
    }

    // MARK: Runs

    /// What a run did with one hour.
    public struct HourResult: Sendable {
        public let hour: ExportHour
        public let version: Int
        public let rows: [ExportTable: Int]
        /// False when the hour's current version was complete already.
        public let written: Bool
    }

    /// Exports one closed hour. A complete hour is left alone unless `again` (a backfill, or a
    /// recount that found rows it lacks), which writes the next version.
    @discardableResult
    public func run(project: Project, hour: ExportHour, again: Bool = false) throws -> HourResult {
        let settings = try settings(project: project)
        let now = clocks.clock(for: project).now().milliseconds
        guard hour.end <= closedUntil(project: project, now: now) else {
            throw AppError.invalidField("hour", "\(hour.text) is not closed yet on the project's clock (\(Timestamp(milliseconds: now).iso8601))")
        }
        return try exclusively(project.id) { try export(hour, settings: settings, again: again) }
    }

    /// Exports every hour from `since` to the last closed one, each as a new version.
    public func backfill(project: Project, since: ExportHour) throws -> [HourResult] {
        let settings = try settings(project: project)
        let until = closedUntil(project: project, now: clocks.clock(for: project).now().milliseconds)
        var results: [HourResult] = []
        try exclusively(project.id) {
            var hour = since
            while hour.end <= until {
                results.append(try export(hour, settings: settings, again: true))
                hour = hour.next
            }
        }
        return results
    }

    /// The job's pass: for each project with an export, the closed hours since it was set up that
    /// have no complete version (oldest first, at most `limit`), then a recount of the last two
    /// complete hours, re-exported when a table's rows changed (a write that committed late, an
    /// erasure). Returns the hours written; failures are logged by the caller through `onError`.
    @discardableResult
    public func runDue(limit: Int = 24, onError: (String, any Error) -> Void = { _, _ in }) -> [HourResult] {
        var written: [HourResult] = []
        // Erasure rows are kept as long as a bucket's lifecycle rule typically keeps the files.
        _ = try? store.exports.deleteErasures(before: clock.now().milliseconds - Self.erasureRetentionDays * 86_400_000)
        guard let all = try? store.exports.allSettings() else { return [] }
        for settings in all where settings.enabled {
            do {
                guard let project = try store.projects.find(id: settings.projectID) else { continue }
                let until = closedUntil(project: project, now: clocks.clock(for: project).now().milliseconds)
                guard until > settings.firstHour else { continue }
                let done = try store.exports.exportedHours(projectID: project.id, from: settings.firstHour, to: until)
                let complete = Set(done.map(\.hour))
                try exclusively(project.id) {
                    var hour = ExportHour(containing: settings.firstHour)
                    var taken = 0
                    while hour.end <= until && taken < limit {
                        if !complete.contains(hour.start) {
                            written.append(try export(hour, settings: settings, again: false))
                            taken += 1
                        }
                        hour = hour.next
                    }
                    for exported in done.suffix(2) where try changed(exported, settings: settings) {
                        written.append(try export(ExportHour(containing: exported.hour), settings: settings, again: true))
                    }
                }
            } catch {
                onError(settings.projectID, error)
            }
        }
        return written
    }

    /// The end of the last closed hour on the project's clock.
    func closedUntil(project: Project, now: Int64) -> Int64 {
        ExportHour(containing: project.testMode ? now : now - closingDelay).start
    }

    private func changed(_ exported: ExportedHour, settings: ExportSettings) throws -> Bool {
        for table in settings.tables {
            let counted = try store.exports.count(
                of: table, projectID: settings.projectID, from: exported.hour, to: exported.hour + ExportHour.milliseconds)
            if counted != exported.rows[table] ?? 0 { return true }
        }
        return false
    }

    private func exclusively<T>(_ projectID: String, _ body: () throws -> T) throws -> T {
        guard running.withLock({ $0.insert(projectID).inserted }) else { throw Self.alreadyRunning(projectID) }
        defer { _ = running.withLock { $0.remove(projectID) } }
        guard try renewLease(projectID) else { throw Self.alreadyRunning(projectID) }
        defer { try? store.exports.release(projectID: projectID, node: node) }
        return try body()
    }

    /// Takes or renews the lease; a holder on this machine whose process has ended (killed, or
    /// crashed) is taken over at once, one on another machine when its lease runs out.
    private func renewLease(_ projectID: String) throws -> Bool {
        let now = clock.now()
        let until = Timestamp(milliseconds: now.milliseconds + leaseMilliseconds)
        if try store.exports.claim(projectID: projectID, node: node, until: until, at: now, replacing: nil) { return true }
        guard let holder = try store.exports.holder(projectID: projectID, at: now), ExportLease.isGone(holder) else { return false }
        return try store.exports.claim(projectID: projectID, node: node, until: until, at: now, replacing: holder)
    }

    private static func alreadyRunning(_ projectID: String) -> AppError {
        AppError.invalidField("project", "an export of project \(projectID) is already running")
    }

    private func export(_ hour: ExportHour, settings: ExportSettings, again: Bool) throws -> HourResult {
        let projectID = settings.projectID
        let stored = try store.exports.exportedHour(projectID: projectID, hour: hour.start)
        if let stored, stored.completedAt != nil, !again {
            return HourResult(hour: hour, version: stored.version, rows: stored.rows, written: false)
        }
        let version: Int
        if let stored, stored.completedAt == nil {
            version = stored.version  // resumed
        } else {
            version = (stored?.version ?? 0) + 1
            try store.exports.beginHour(projectID: projectID, hour: hour.start, version: version)
        }
        let destination = try self.destination(settings)
        let uploads = ExportUploads(
            started: { [store] key, uploadID in try store.exports.setUpload(projectID: projectID, path: key, uploadID: uploadID) },
            finished: { [store] key in try store.exports.setUpload(projectID: projectID, path: key, uploadID: nil) })
        for left in try store.exports.uploads(projectID: projectID) {
            try destination.abort(key: left.path, uploadID: left.uploadID)
            try store.exports.setUpload(projectID: projectID, path: left.path, uploadID: nil)
        }
        var files = try store.exports.files(projectID: projectID, hour: hour.start, version: version)
        let directory = scratch + "/" + projectID
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for table in settings.tables {
            // Renewed for each table: a backfill of many hours outlasts one lease.
            guard try renewLease(projectID) else { throw Self.alreadyRunning(projectID) }
            let missing = settings.formats.filter { format in !files.contains { $0.table == table && $0.format == format } }
            guard !missing.isEmpty else { continue }
            let written = try write(table, formats: missing, hour: hour, projectID: projectID, directory: directory)
            for (format, file) in written {
                defer { try? FileManager.default.removeItem(atPath: file.path) }
                let key = hour.key(table: table, format: format)
                try destination.put(
                    path: file.path, bytes: file.bytes, sha256: file.sha256, key: key,
                    contentType: format == .csv ? "text/csv" : "application/x-ndjson", uploads: uploads)
                let exported = ExportedFile(
                    table: table, format: format, path: destination.location(of: key), rows: file.rows, bytes: file.bytes, sha256: file.sha256)
                try store.exports.recordFile(exported, projectID: projectID, hour: hour.start, version: version)
                files.append(exported)
            }
        }
        var rows: [ExportTable: Int] = [:]
        for file in files { rows[file.table] = file.rows }
        let manifest = ExportManifest(
            projectID: projectID, hour: hour, version: version, exportedAt: clock.now(), files: files, tables: settings.tables
        ).json
        let manifestPath = directory + "/manifest.json"
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: manifestPath))
        defer { try? FileManager.default.removeItem(atPath: manifestPath) }
        try destination.put(
            path: manifestPath, bytes: manifest.utf8.count, sha256: Secrets.sha256Hex(manifest), key: hour.manifestKey,
            contentType: "application/json", uploads: uploads)
        try store.exports.completeHour(projectID: projectID, hour: hour.start, version: version, manifest: manifest, rows: rows, at: clock.now())
        return HourResult(hour: hour, version: version, rows: rows, written: true)
    }

    private struct WrittenFile {
        let path: String
        let rows: Int
        let bytes: Int
        let sha256: String
    }

    /// The table's hour in each of `formats`, read once.
    private func write(_ table: ExportTable, formats: [ExportFormat], hour: ExportHour, projectID: String, directory: String) throws
        -> [(ExportFormat, WrittenFile)]
    {
        let digests = formats.map { _ in SHA256Stream() }
        let writers = try formats.enumerated().map { index, format in
            try GzipFileWriter(path: "\(directory)/\(table.rawValue).\(format.fileExtension)") { digests[index].update($0) }
        }
        var buffers = formats.map { _ in [UInt8]() }
        for index in formats.indices where formats[index] == .csv { ExportEncoding.csvHeader(table, into: &buffers[index]) }
        var rows = 0
        var pacing = ExportPacing(writes: { [store] in store.writeStatistics.committedWrites })
        try store.exports.rows(of: table, projectID: projectID, from: hour.start, to: hour.end, pageSize: pageSize) { values in
            rows += 1
            if rows % 1000 == 0 { pacing.pause() }
            for index in formats.indices {
                switch formats[index] {
                case .csv: ExportEncoding.csvRow(values, of: table, into: &buffers[index])
                case .ndjson: ExportEncoding.ndjsonRow(values, of: table, into: &buffers[index])
                }
                if buffers[index].count >= 1 << 16 {
                    try writers[index].write(buffers[index])
                    buffers[index].removeAll(keepingCapacity: true)
                }
            }
        }
        return try formats.indices.map { index in
            try writers[index].write(buffers[index])
            try writers[index].finish()
            return (
                formats[index],
                WrittenFile(path: writers[index].path, rows: rows, bytes: writers[index].outputBytes, sha256: digests[index].finishHex())
            )
        }
    }

    func destination(_ settings: ExportSettings) throws -> any ExportDestination {
        switch ExportTarget.parse(settings.destination) {
        case .directory(let path)?: return DirectoryDestination(root: path)
        case .bucket(let name, let prefix)?:
            guard let (transport, partSizeMiB) = transport.withLock({ $0 }) else {
                throw ExportDestinationError("outbound requests are not set up on this process, so nothing can reach \(settings.destination)")
            }
            return S3Destination(
                bucket: name, prefix: prefix, endpoint: settings.endpoint,
                signature: S3Signature(
                    accessKeyID: settings.accessKeyID ?? "", secretAccessKey: settings.secretAccessKey ?? "", region: settings.region),
                transport: transport, clock: clock, partSize: partSizeMiB << 20)
        case nil: throw AppError.invalidField("destination", "\(settings.destination) is not a destination")
        }
    }
}
