import Foundation
import PackagePlugin

/// Compiles the package's `migrations/*.sql` (SQLite) into the Store target and
/// `migrations/postgres/*.sql` into the PostgresStore target as Swift string constants, so the binary carries its schema (a container needs no source tree) and the `.sql`
/// files stay the single source of truth.
@main
struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let directory = context.package.directoryURL.appending(path: "migrations")
        func sqlFiles(in directory: URL) throws -> [URL] {
            try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
                .filter { $0.pathExtension == "sql" }
                .sorted { $0.lastPathComponent < $1.lastPathComponent }
        }
        // Each target embeds its own backend's: PostgreSQL's live in migrations/postgres/.
        let files = try sqlFiles(in: target.name == "PostgresStore" ? directory.appending(path: "postgres") : directory)
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) migrations",
                executable: try context.tool(named: "embed-migrations").url,
                arguments: [output.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output]
            )
        ]
    }
}
