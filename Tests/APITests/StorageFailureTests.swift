import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A small tmpfs of the test's own: a file system that fills up, or that is read-only. Mounting
/// needs root (as here and in CI); where it is refused the tests that need one are skipped.
final class TestFileSystem {
    let folder: URL

    init?(kilobytes: Int) {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-fs-\(UUID().uuidString)")
        guard (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)) != nil,
            Self.command("/bin/mount", ["-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", folder.path])
        else {
            try? FileManager.default.removeItem(at: folder)
            return nil
        }
    }

    deinit {
        _ = Self.command("/bin/umount", ["-l", folder.path])
        try? FileManager.default.removeItem(at: folder)
    }

    func remountReadOnly() -> Bool { Self.command("/bin/mount", ["-o", "remount,ro", folder.path]) }

    /// Fills what is left with a file (removed to free the space again).
    func fill() -> URL {
        let filler = folder.appendingPathComponent("filler")
        _ = FileManager.default.createFile(atPath: filler.path, contents: nil)
        if let handle = FileHandle(forWritingAtPath: filler.path) {
            let block = Data(count: 4096)
            while (try? handle.write(contentsOf: block)) != nil {}
            try? handle.close()
        }
        return filler
    }

    static let available: Bool = TestFileSystem(kilobytes: 64) != nil

    private static func command(_ path: String, _ arguments: [String]) -> Bool {
        (try? ChildProcess.run(path, arguments))?.status == 0
    }
}

/// A database the server cannot write: refused at start; a full disk: writes answered 503 naming
/// it, readiness down until a write succeeds again, nothing stored lost or changed.
@Suite(.serialized, .enabled(if: TestFileSystem.available, "mounting a tmpfs needs root"))
struct StorageFailureTests {
    @Test func aDatabaseOnAReadOnlyFileSystemStopsTheStartNamingIt() throws {
        let disk = try #require(TestFileSystem(kilobytes: 8192))
        let path = disk.folder.appendingPathComponent("db.sqlite").path
        #expect(try run(["migrate", "--db", path]).status == 0)
        #expect(disk.remountReadOnly())
        #expect {
            _ = try ServerProcess(["--db", path], environment: ["ATTRIBUTIOND_ADMIN_KEY": "storage-admin-key-0123456789"])
        } throws: { error in
            // The server's lock beside the file, or the database itself, cannot be written.
            "\(error)".contains(path) && ("\(error)".contains("SQLite error") || "\(error)".contains("cannot write beside the database"))
        }
    }

    /// A read-only database file in a folder the server may write (its WAL can be made, so SQLite
    /// opens the file read-only without a word): the outside test's server reported ready and
    /// answered every write 500. Run as `nobody`, since root writes read-only files anyway; under
    /// `timeout`, so a server that wrongly starts ends the test instead of holding it.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser")))
    func aReadOnlyDatabaseFileStopsTheStartNamingIt() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-ro-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("db.sqlite").path
        #expect(try run(["migrate", "--db", path]).status == 0)
        for file in [folder.path, path] { #expect(chown(file, 65534, 65534) == 0) }
        #expect(chmod(path, 0o444) == 0)
        let started = try ChildProcess.run(
            "/usr/bin/timeout",
            [
                "20", "/usr/sbin/runuser", "-u", "nobody", "--", try attributiondBinary().path,
                "serve", "--host", "127.0.0.1", "--port", "0", "--db", path,
            ],
            environment: ["ATTRIBUTIOND_ADMIN_KEY": "storage-admin-key-0123456789", "PATH": "/usr/bin:/bin"])
        let stderr = String(decoding: started.stderr, as: UTF8.self)
        #expect(started.status == 1, "\(started.status): \(stderr)")
        #expect(stderr.contains("cannot write the database \(path)"), "\(stderr)")
    }

    @Test func aFullDiskAnswersWrites503AndReadinessComesBackWhenSpaceIsFreed() throws {
        let disk = try #require(TestFileSystem(kilobytes: 3072))
        let key = "storage-admin-key-0123456789"
        let server = try ServerProcess(folder: disk.folder, environment: ["ATTRIBUTIOND_ADMIN_KEY": key, "ATTRIBUTIOND_LOG_LEVEL": "notice"])
        defer { _ = server.terminateAndWait() }
        func send(_ method: String, _ path: String, _ body: String? = nil) throws -> TestResponse {
            let client = try RawClient(port: server.port)
            client.send(
                "\(method) \(path) HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(key)\r\n"
                    + (body.map { "Content-Length: \($0.utf8.count)\r\n\r\n\($0)" } ?? "\r\n"))
            return try #require(client.readResponse())
        }
        let created = try send("POST", "/admin/v1/projects", #"{"name":"Shop"}"#)
        let projectID = try #require(created.json?["id"] as? String)
        #expect(try send("POST", "/admin/v1/projects/\(projectID)/links", #"{"short_code":"before"}"#).status == 201)

        let filler = disk.fill()
        var refused: TestResponse?
        for index in 0..<200 {  // what the WAL still had room for goes first
            let answer = try send(
                "POST", "/admin/v1/projects/\(projectID)/links",
                #"{"short_code":"full\#(index)","description":"\#(String(repeating: "x", count: 2000))"}"#)
            if answer.status != 201 {
                refused = answer
                break
            }
        }
        let answer = try #require(refused)
        #expect(answer.status == 503, "\(answer.status) \(answer.bodyText)")
        #expect(answer.json?["error"] as? String == "storage_full" && answer.header("Retry-After") != nil, "\(answer.bodyText)")
        let ready = try send("GET", "/health/ready")
        #expect(ready.status == 503 && ready.bodyText.contains("disk is full"), "\(ready.status) \(ready.bodyText)")
        #expect(try send("GET", "/admin/v1/projects/\(projectID)/links").bodyText.contains("\"before\""))

        try FileManager.default.removeItem(at: filler)
        #expect(try send("POST", "/admin/v1/projects/\(projectID)/links", #"{"short_code":"after"}"#).status == 201)
        #expect(try send("GET", "/health/ready").status == 200)
        let listed = try send("GET", "/admin/v1/projects/\(projectID)/links").bodyText
        #expect(listed.contains("\"before\"") && listed.contains("\"after\""))
    }
}
