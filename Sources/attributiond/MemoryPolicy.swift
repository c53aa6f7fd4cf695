#if canImport(Glibc)
    import Glibc
#endif

/// How the C allocator treats freed memory in the server process.
enum MemoryPolicy {
    /// glibc hands the free top of a thread's heap back to the kernel (`madvise`) once it passes
    /// 128 KiB. Releasing the writer's per-item savepoints frees their sub-journals, which often
    /// crosses that line, and each hand-back flushes the TLB on every core: 10% of the writer's
    /// samples under init load (docs/performance.md).
    /// Up to 64 MiB of free heap per thread arena is kept for reuse instead.
    static let retainedFreeHeapBytes: Int32 = 64 << 20

    static func apply() {
        #if canImport(Glibc)
            // An operator's own setting (glibc reads it at start) is left as it is.
            guard getenv("MALLOC_TRIM_THRESHOLD_") == nil else { return }
            // `mallopt` is declared in <malloc.h>, which the Glibc module leaves out; its ABI and the
            // option number (M_TRIM_THRESHOLD is -1) are stable.
            typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
            let trimThreshold: Int32 = -1
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
            _ = unsafeBitCast(symbol, to: Mallopt.self)(trimThreshold, retainedFreeHeapBytes)
        #endif
    }
}
