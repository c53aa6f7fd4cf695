import ArgumentParser
import Store

struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply pending migrations to the database and exit.")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let configuration = try global.loadConfiguration()
        do {
            try Database.createFolder(for: configuration.db)
            let connection = try SQLiteConnection(path: configuration.db, mode: .readWrite)
            try connection.enableWAL()
            let applied = try Migrator.migrate(connection)
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
