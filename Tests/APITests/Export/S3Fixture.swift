import Foundation
import TestSupport
import Testing

/// `scripts/export-tests/s3.py` as a child: moto's S3 server with signing enforced, or the
/// pass-through that holds a part upload; its first line of output says where it listens.
final class S3Fixture: @unchecked Sendable {
    let process: ChildProcess
    let info: [String: String]

    var endpoint: String { info["endpoint"]! }

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/export-tests/s3.py").path
    }

    init(_ arguments: [String]) throws {
        process = try ChildProcess("/usr/bin/env", ["python3", Self.script] + arguments, input: true, output: true, error: true)
        let errors = process.standardError!
        Thread.detachNewThread { while !errors.availableData.isEmpty {} }  // drained: werkzeug logs every request
        var line = Data()
        while let byte = try process.standardOutput!.read(upToCount: 1), let first = byte.first, first != 0x0A { line.append(first) }
        guard let object = try JSONSerialization.jsonObject(with: line) as? [String: String] else {
            throw CocoaError(
                .fileReadCorruptFile,
                userInfo: [NSLocalizedDescriptionKey: "s3.py \(arguments.first ?? "") did not start (run scripts/ensure-deps --test): \(line)"])
        }
        info = object
    }

    deinit {
        try? process.standardInput?.close()
        process.send(SIGTERM)
        _ = process.wait(orKillAfter: 5)
    }

    /// What `s3.py read` found under `prefix`.
    static func read(_ server: S3Fixture, prefix: String) throws -> [String: Any] {
        let result = try ChildProcess.run(
            "/usr/bin/env",
            [
                "python3", script, "read", server.endpoint, server.info["bucket"]!, prefix, server.info["access_key_id"]!,
                server.info["secret_access_key"]!,
            ])
        guard result.status == 0, let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: String(decoding: result.stderr, as: UTF8.self)])
        }
        return object
    }
}
