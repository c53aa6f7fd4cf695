import ArgumentParser
import Configuration
@_spi(StoreInternals) import PostgresStore
import Store
import StoreContracts

struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply pending migrations to the database and exit.")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let configuration = try global.loadConfiguration()
        if let url = configuration.postgresURL {
            do {
                let applied = try PGMigrator.migrate(url: url)
                if applied.isEmpty {
                    print("PostgreSQL: up to date (\(Migration.postgres.count) migrations)")
                } else {
                    for name in applied { print("applied \(name)") }
                }
            } catch {
                FileHandleOutput.standardError("migrate PostgreSQL: \(error)")
                throw ExitCode.failure
            }
            return
        }
        do {
            let applied = try Migrator.migrate(path: configuration.db)
            if applied.isEmpty {
                print("\(configuration.db): up to date (\(Migration.bundled.count) migrations)")
            } else {
                for name in applied { print("applied \(name)") }
            }
        } catch {
            FileHandleOutput.standardError("migrate \(configuration.db): \(error)")
            throw ExitCode.failure
        }
    }
}
