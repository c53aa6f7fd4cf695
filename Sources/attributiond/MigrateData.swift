import ArgumentParser
import Configuration
import Foundation
import PostgresClient
@_spi(StoreInternals) import PostgresStore
import Store
import StoreContracts

/// `attributiond migrate-data --from <sqlite file> --to <postgres url>`: moves a deployment that
/// started on SQLite to PostgreSQL (docs/scale-out.md). Run with the SQLite server stopped: rows
/// are copied as they are at the time; running it again after an interruption finishes the copy.
struct MigrateData: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate-data",
        abstract: "Copy a SQLite database's rows into PostgreSQL, then compare row counts (run again to resume).")

    @Option(help: "The SQLite database file to copy from.")
    var from: String

    @Option(help: "The PostgreSQL database to copy into (postgres://user:password@host:5432/db).")
    var to: String

    @Option(help: "Rows per INSERT.")
    var batch: Int = 1000

    func run() throws {
        // The same check as `database_url`'s; a SQLite path is not a place to copy to.
        var target = ServerConfiguration()
        do { try target.setDatabase(to, "--to") } catch let error as ConfigurationError {
            FileHandleOutput.standardError("migrate-data: \(error.description)")
            throw ExitCode(2)
        }
        guard let url = target.postgresURL else {
            FileHandleOutput.standardError("migrate-data: --to: expected a postgres:// URL")
            throw ExitCode(2)
        }
        guard FileManager.default.fileExists(atPath: from) else {
            FileHandleOutput.standardError("migrate-data: --from: no SQLite database at \(from)")
            throw ExitCode(2)
        }
        do {
            // Opening brings the file to this build's schema and adds up its pending rollups.
            let source = try Database(path: from)
            let copier = DataCopier(source: source, target: try PGConnection(url: url), batchRows: batch)
            let counts = try copier.copy()
            var mismatched = false
            for count in counts {
                let same = count.postgres == count.sqlite
                mismatched = mismatched || !same
                print("\(count.table): sqlite \(count.sqlite), postgres \(count.postgres)\(same ? "" : "  MISMATCH")")
            }
            if mismatched {
                FileHandleOutput.standardError(
                    "migrate-data: row counts differ (PostgreSQL held rows before the copy, or the SQLite file was written during it)")
                throw ExitCode.failure
            }
            print("copied and verified: \(counts.reduce(0) { $0 + $1.sqlite }) rows in \(counts.count) tables")
        } catch let exit as ExitCode {
            throw exit
        } catch {
            FileHandleOutput.standardError("migrate-data: \(error)")
            throw ExitCode.failure
        }
    }
}
