import Foundation

/// Where an export's files go: a local directory or an S3-compatible bucket. `key` is the file's
/// path under the destination's prefix (`table=clicks/date=…/hour=…/clicks.csv.gz`).
public protocol ExportDestination: Sendable {
    /// Puts the local file `path` (`bytes` long, `sha256` its digest) at `key`, replacing what is
    /// there. A multipart upload under way is told to `uploads`, so a run after a crash aborts it.
    func put(path: String, bytes: Int, sha256: String, key: String, contentType: String, uploads: ExportUploads) throws
    /// Aborts a multipart upload a run that crashed left.
    func abort(key: String, uploadID: String) throws
    /// Where `key` is, as the manifest and the command line show it.
    func location(of key: String) -> String
}

/// Keeps a multipart upload's id while it is under way.
public struct ExportUploads: Sendable {
    let started: @Sendable (_ key: String, _ uploadID: String) throws -> Void
    let finished: @Sendable (_ key: String) throws -> Void
}

public struct ExportDestinationError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// A directory on this machine (`file:///var/lib/attributiond/export`): each file copied in under
/// a temporary name and renamed, so a reader never sees half of one.
struct DirectoryDestination: ExportDestination {
    let root: String

    func put(path: String, bytes: Int, sha256: String, key: String, contentType: String, uploads: ExportUploads) throws {
        let target = root + "/" + key
        let directory = (target as NSString).deletingLastPathComponent
        let files = FileManager.default
        do {
            try files.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let partial = target + ".partial"
            if files.fileExists(atPath: partial) { try files.removeItem(atPath: partial) }
            try files.copyItem(atPath: path, toPath: partial)
            guard rename(partial, target) == 0 else { throw ExportDestinationError("cannot rename \(partial) to \(target) (errno \(errno))") }
        } catch let error as ExportDestinationError {
            throw error
        } catch {
            throw ExportDestinationError("cannot write \(target): \(error.localizedDescription)")
        }
    }

    func abort(key: String, uploadID: String) throws {}

    func location(of key: String) -> String { "file://" + root + "/" + key }
}
