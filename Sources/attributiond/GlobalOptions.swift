import App
import ArgumentParser
import Configuration
import Foundation
@_spi(StoreInternals) import PostgresStore
import Store
import StoreContracts

/// `--config` and `--db`, taken by every command.
struct GlobalOptions: ParsableArguments {
    @Option(help: "Configuration file (default: $ATTRIBUTIOND_CONFIG, ./config/attributiond.json, /etc/attributiond/attributiond.json).")
    var config: String?

    @Option(help: "SQLite database file (default: ./data/attributiond.sqlite).")
    var db: String?

    @Option(help: "The database: a postgres:// URL, or a SQLite file path (default: $ATTRIBUTIOND_DATABASE_URL, database_url, --db).")
    var database: String?

    /// The configuration from file and environment, with `--db` applied. A bad value ends the
    /// command with a message naming the key (exit 2).
    func loadConfiguration() throws -> ServerConfiguration {
        do {
            let environment = ProcessInfo.processInfo.environment
            var configuration = try ConfigurationLoader.load(file: config, environment: environment)
            if db != nil, database == nil, let url = configuration.postgresURL {
                let source = environment["ATTRIBUTIOND_DATABASE_URL"] == url ? "ATTRIBUTIOND_DATABASE_URL" : "database_url"
                throw ConfigurationError(key: "--db", message: "and \(source) (a PostgreSQL URL) both name the database; give one")
            }
            if let db {
                configuration.db = db
                configuration.postgresURL = nil
            }
            if let database { try configuration.setDatabase(database, "--database") }
            return configuration
        } catch let error as ConfigurationError {
            FileHandleOutput.standardError(error.description)
            throw ExitCode(2)
        }
    }

    /// The application layer over the configured database (the commands that read or change data).
    /// A SQLite file that does not exist is refused, naming it: made here, it would be an empty
    /// database beside the server's (a command run from another folder, or a mistyped `--db`).
    func openApp(_ configuration: ServerConfiguration) throws -> AppServices {
        if configuration.postgresURL == nil, !FileManager.default.fileExists(atPath: configuration.db) {
            let path = URL(fileURLWithPath: configuration.db).standardizedFileURL.path
            FileHandleOutput.standardError(
                """
                no database at \(path): give the server's with --db (or ATTRIBUTIOND_DB, or its configuration file), \
                or make a new one with `attributiond migrate --db \(path)`
                """)
            throw ExitCode.failure
        }
        return AppServices(
            store: try openStore(configuration),
            outboundPolicy: OutboundAddressPolicy(allowPrivateAddresses: configuration.outbound.allowPrivateAddresses),
            exportScratch: configuration.export.scratchDirectory ?? ExportService.defaultScratch)
    }

    /// The configured backend: PostgreSQL when a `postgres://` URL is set (its pending migrations
    /// applied), else the SQLite file. A database that cannot be opened or reached, or whose
    /// schema is newer than this binary, ends the command with a message saying so (exit 1).
    func openStore(_ configuration: ServerConfiguration) throws -> any StoreBackend {
        guard let url = configuration.postgresURL else { return SQLiteStore(database: try openDatabase(configuration)) }
        do {
            return try PGStoreBackend(url: url, readURL: configuration.postgresReadURL, writeLanes: configuration.postgresWriteLanes)
        } catch {
            LifecycleLog.write(
                level: "error", message: "cannot open the database",
                fields: ["database": Self.redacted(url), "error": "\(error)"])
            throw ExitCode.failure
        }
    }

    func openDatabase(_ configuration: ServerConfiguration) throws -> Database {
        do {
            return try Database(path: configuration.db, synchronous: configuration.synchronous, memory: configuration.sqliteMemory)
        } catch {
            LifecycleLog.write(level: "error", message: "cannot open the database", fields: ["db": configuration.db, "error": "\(error)"])
            throw ExitCode.failure
        }
    }

    /// A database URL with its password replaced, for logs.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? "postgres://…"
    }
}
