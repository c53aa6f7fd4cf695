import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps an export from slowing the requests. The export's thread runs at nice 19, yet the click
/// path is bound by the one writer thread, so the export still got a whole core beside it and the
/// writer ran 20–28% slower from what the two share (caches, memory); measured with
/// `scripts/bench-export`. So while writes are committing, the export rests as long as it worked
/// (half the speed, the click rate within a few percent of its own); on an idle server it runs
/// at full speed.
struct ExportPacing {
    let writes: () -> Int
    private var lastWrites: Int
    private var since = DispatchTime.now().uptimeNanoseconds
    /// The rest taken per unit of work while writes commit.
    static let restPerWork = 1.0

    init(writes: @escaping () -> Int) {
        self.writes = writes
        lastWrites = writes()
    }

    /// Called every thousand rows: rests for the time they took when writes committed meanwhile.
    mutating func pause() {
        let now = DispatchTime.now().uptimeNanoseconds
        let committed = writes()
        if committed != lastWrites, now > since {
            // At most a second at a time, in microseconds.
            let rest = min(Double(now - since) * Self.restPerWork / 1000, 1_000_000)
            usleep(UInt32(rest))
        }
        lastWrites = committed
        since = DispatchTime.now().uptimeNanoseconds
    }
}
