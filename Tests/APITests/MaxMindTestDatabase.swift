import Foundation
import TestSupport
import Testing

/// A MaxMind-format database written by Debian's libmaxmind-db-writer-perl (`scripts/ensure-deps
/// --test` installs it): `tree` is the Perl that builds `$tree` (a `MaxMind::DB::Writer::Tree`)
/// and inserts its networks; the file is written to a new temporary folder.
func maxMindTestDatabase(named name: String, tree: String) throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-\(name)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let script = folder.appendingPathComponent("make.pl").path
    let database = folder.appendingPathComponent("\(name).mmdb").path
    try """
    use strict; use warnings;
    use MaxMind::DB::Writer::Tree;
    \(tree)
    open my $fh, '>:raw', $ARGV[0] or die "cannot write: $!"; $tree->write_tree($fh); close $fh;
    """.write(toFile: script, atomically: true, encoding: .utf8)
    let perl = Process()
    perl.executableURL = URL(fileURLWithPath: "/usr/bin/perl")
    perl.arguments = [script, database]
    try perl.run()
    perl.waitUntilExit()
    guard perl.terminationStatus == 0 else {
        Issue.record("perl could not write the test database: is libmaxmind-db-writer-perl installed (scripts/ensure-deps --test)?")
        throw ConnectError(code: perl.terminationStatus)
    }
    return database
}
