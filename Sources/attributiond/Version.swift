import ArgumentParser
import HTTP
import Store
import StoreContracts

struct Version: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the version and the linked libraries.")

    /// The version, here only: CHANGELOG.md's newest heading must name it (`CommandLineTests`).
    static let number = "0.2.0"

    func run() throws {
        print("attributiond \(Self.number) (SQLite \(SQLiteLibrary.version), \(OpenSSLLibrary.version))")
    }
}
