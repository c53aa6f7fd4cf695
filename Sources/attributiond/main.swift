import ArgumentParser

#if canImport(Glibc)
    import Glibc
#endif

// A word that names no command is not `serve`'s business: ArgumentParser would hand it to the
// default command and print serve's usage. Named as unknown, with the list.
let commands = Attributiond.configuration.subcommands.map { $0._commandName } + ["help"]
if CommandLine.arguments.count > 1, let word = CommandLine.arguments.dropFirst().first, !word.hasPrefix("-"), !commands.contains(word) {
    FileHandleOutput.standardError(
        "attributiond: unknown command '\(word.prefix(64))'. Commands: \(commands.dropLast().joined(separator: ", ")) (attributiond help <command>)")
    exit(2)
}

// A bad flag or value exits 2 with a message naming it (ArgumentParser would use 64).
do {
    var command = try Attributiond.parseAsRoot()
    try command.run()
} catch {
    switch Attributiond.exitCode(for: error) {
    case .success:
        Attributiond.exit(withError: error)  // --help and friends: print, exit 0
    case .validationFailure:
        FileHandleOutput.standardError(Attributiond.fullMessage(for: error))
        exit(2)
    default:
        Attributiond.exit(withError: error)
    }
}
