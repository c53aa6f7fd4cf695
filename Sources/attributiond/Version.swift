import ArgumentParser
import HTTP
import Store

struct Version: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the version and the linked libraries.")

    static let number = "0.1.0"

    func run() throws {
        print("attributiond \(Self.number) (SQLite \(SQLiteLibrary.version), \(OpenSSLLibrary.version))")
    }
}
