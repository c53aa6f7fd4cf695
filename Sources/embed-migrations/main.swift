import Foundation

// embed-migrations OUTPUT.swift FILE.sql... — writes `EmbeddedMigrations.all`, in file-name order.
let arguments = CommandLine.arguments.dropFirst()
guard let output = arguments.first else {
    FileHandle.standardError.write(Data("usage: embed-migrations OUTPUT.swift FILE.sql...\n".utf8))
    exit(2)
}
var source = "// Generated from migrations/*.sql by the EmbedMigrations plugin. Do not edit.\n"
source += "enum EmbeddedMigrations {\n    static let all: [(name: String, sql: String)] = [\n"
for path in arguments.dropFirst() {
    let url = URL(fileURLWithPath: path)
    let sql = try String(contentsOf: url, encoding: .utf8)
    // A raw string delimiter longer than any run of # in the file keeps the SQL verbatim.
    var hashes = "#"
    while sql.contains("\"" + hashes) { hashes += "#" }
    source += "        (name: \"\(url.lastPathComponent)\", sql: \(hashes)\"\"\"\n\(sql)\n\"\"\"\(hashes)),\n"
}
source += "    ]\n}\n"
try source.write(toFile: output, atomically: true, encoding: .utf8)
