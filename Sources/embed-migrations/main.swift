import Foundation

// embed-migrations OUTPUT.swift FILE.sql... — writes `EmbeddedMigrations.all`, the files in
// file-name order (one backend's: the plugin gives each store target its own folder).
let arguments = CommandLine.arguments.dropFirst()
guard let output = arguments.first else {
    FileHandle.standardError.write(Data("usage: embed-migrations OUTPUT.swift FILE.sql...\n".utf8))
    exit(2)
}
var source = "// Generated from migrations/*.sql by the EmbedMigrations plugin. Do not edit.\n"
source += "enum EmbeddedMigrations {\n"
let files = arguments.dropFirst().map { URL(fileURLWithPath: $0) }
for (name, urls) in [("all", files)] {
    source += "    static let \(name): [(name: String, sql: String)] = [\n"
    for url in urls.sorted(by: { $0.lastPathComponent < $1.lastPathComponent }) {
        let sql = try String(contentsOf: url, encoding: .utf8)
        // A raw string delimiter longer than any run of # in the file keeps the SQL verbatim.
        var hashes = "#"
        while sql.contains("\"" + hashes) { hashes += "#" }
        source += "        (name: \"\(url.lastPathComponent)\", sql: \(hashes)\"\"\"\n\(sql)\n\"\"\"\(hashes)),\n"
    }
    source += "    ]\n"
}
source += "}\n"
try source.write(toFile: output, atomically: true, encoding: .utf8)
