public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with `posix_spawn`, for tests that run the binary, `openssl` or `node`.
///
/// Why not Foundation's `Process`: on Linux its `run()` crashed the whole test bundle (SIGSEGV in
/// memmove inside `Process.run()`, CI, Swift 6.3.1) while other tests opened and closed sockets and
/// launched processes at the same time, even with launches serialised. Here every descriptor the
/// parent creates is close-on-exec, the child gets only its three standard streams, starts with no
/// signal blocked and every handler at its default, and is reaped by the one `wait()` that asks.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    /// The write end of the child's stdin, when `input` was asked for.
    public let standardInput: FileHandle?
    /// The read ends of the child's stdout and stderr, when asked for.
    public let standardOutput: FileHandle?
    public let standardError: FileHandle?

    private let lock = NSLock()
    private var exitStatus: Int32?

    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        directory: String? = nil, input: Bool = false, output: Bool = false, error: Bool = false
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var childEnds: [Int32] = []
        defer { childEnds.forEach { close($0) } }

        func stream(_ wanted: Bool, _ target: Int32, childReads: Bool) throws -> FileHandle? {
            guard wanted else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", childReads ? O_RDONLY : O_WRONLY, 0)
                return nil
            }
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { throw ChildProcessError.system("pipe", errno) }
            // A child spawned by another thread in between gets these two too, until closefrom drops them.
            ends.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
            let (childEnd, parentEnd) = childReads ? (ends[0], ends[1]) : (ends[1], ends[0])
            childEnds.append(childEnd)
            posix_spawn_file_actions_adddup2(&actions, childEnd, target)  // dup2 clears close-on-exec
            return FileHandle(fileDescriptor: parentEnd, closeOnDealloc: true)
        }
        standardInput = try stream(input, 0, childReads: true)
        standardOutput = try stream(output, 1, childReads: false)
        standardError = try stream(error, 2, childReads: false)
        if let addCloseFrom = Self.addCloseFrom { _ = addCloseFrom(&actions, 3) }
        if let directory {
            guard let addChangeDirectory = Self.addChangeDirectory else { throw ChildProcessError.system("addchdir_np", ENOSYS) }
            guard addChangeDirectory(&actions, directory) == 0 else { throw ChildProcessError.system("addchdir_np", errno) }
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        var allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let environment = environment ?? ProcessInfo.processInfo.environment
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard status == 0 else { throw ChildProcessError.system("posix_spawn \(executable)", status) }
        pid = child
    }

    /// Waits for the child to end (once; later calls return the same answer): its exit status, or
    /// 128 + the signal's number when a signal ended it, as shells report it.
    @discardableResult
    public func wait() -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        if let exitStatus { return exitStatus }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
        let signal = raw & 0x7f
        let status = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
        exitStatus = status
        return status
    }

    /// `wait()`, but the child is killed (SIGKILL) once `seconds` have passed: a child that does
    /// not end when told fails its test instead of hanging the whole run.
    @discardableResult
    public func wait(orKillAfter seconds: Double) -> Int32 {
        _ = eventually(timeout: seconds) { !isRunning }
        if isRunning { kill(pid, SIGKILL) }
        return wait()
    }

    public var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        if exitStatus != nil { return false }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return true }
        let signal = raw & 0x7f
        exitStatus = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
        return false
    }

    public func send(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Runs to the end: stdin fed with `input`, stdout and stderr collected (stderr on a second
    /// thread, so that neither pipe can fill up and stall the child).
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        directory: String? = nil, input: Data? = nil
    ) throws -> (status: Int32, stdout: Data, stderr: Data) {
        let child = try ChildProcess(
            executable, arguments, environment: environment, directory: directory,
            input: input != nil, output: true, error: true)
        let stderrDone = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var stderr = Data()
        Thread.detachNewThread {
            stderr = child.standardError!.readDataToEndOfFile()
            stderrDone.signal()
        }
        if let input, let writer = child.standardInput {
            writer.write(input)
            try writer.close()
        }
        let stdout = child.standardOutput!.readDataToEndOfFile()
        stderrDone.wait()
        return (child.wait(), stdout, stderr)
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias AddChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    /// glibc declares these two only under `_GNU_SOURCE`, which Swift's Glibc module does not set.
    private static let addCloseFrom: AddCloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np")
    private static let addChangeDirectory: AddChangeDirectory? = symbol("posix_spawn_file_actions_addchdir_np")

    private static func symbol<T>(_ name: String) -> T? {
        guard let handle = dlopen(nil, RTLD_NOW), let address = dlsym(handle, name) else { return nil }
        return unsafeBitCast(address, to: T.self)
    }
}

public enum ChildProcessError: Error, CustomStringConvertible {
    case system(String, Int32)

    public var description: String {
        switch self {
        case .system(let call, let code): "\(call): \(String(cString: strerror(code)))"
        }
    }
}
