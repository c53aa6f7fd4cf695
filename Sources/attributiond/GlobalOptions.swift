import App
import ArgumentParser
import Foundation
import Store

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
            var configuration = try ConfigurationLoader.load(file: config, environment: ProcessInfo.processInfo.environment)
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
    func openApp(_ configuration: ServerConfiguration) throws -> AppServices {
        AppServices(store: SQLiteStore(database: try openDatabase(configuration)),
                    outboundPolicy: OutboundAddressPolicy(allowPrivateAddresses: configuration.outbound.allowPrivateAddresses))
    }

    func openDatabase(_ configuration: ServerConfiguration) throws -> Database {
        if configuration.postgresURL != nil {
            // The schema and `migrate` exist for PostgreSQL; its stores do not yet (docs/scale-out.md).
            LifecycleLog.write(level: "error", message: "this build serves from SQLite only; on PostgreSQL it runs `attributiond migrate`",
                               fields: ["database": "postgres"])
            throw ExitCode.failure
        }
        do {
            return try Database(path: configuration.db, synchronous: configuration.synchronous)
        } catch {
            LifecycleLog.write(level: "error", message: "cannot open the database", fields: ["db": configuration.db, "error": "\(error)"])
            throw ExitCode.failure
        }
    }
}
