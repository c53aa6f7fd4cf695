import ArgumentParser

#if canImport(Glibc)
    import Glibc
#endif

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
