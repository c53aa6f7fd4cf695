import StoreContracts

/// How much memory each SQLite connection may hold: its page cache, and how much of the file it
/// reads through a memory map. Both count in the server's resident set (mapped pages are the
/// kernel's page cache, but they are charged to the process that touches them), so they are what
/// an operator turns to bound it; docs/performance.md "Memory" has the figures behind the defaults.
public struct SQLiteMemory: Sendable, Equatable {
    /// Page cache per connection, in MiB (the writer and each reader have one).
    public var cacheMiB: Int
    /// Bytes of the file read through a memory map, in MiB; 0 reads with `pread`.
    public var mmapMiB: Int

    public init(cacheMiB: Int = SQLiteMemory.defaultCacheMiB, mmapMiB: Int = SQLiteMemory.defaultMmapMiB) {
        self.cacheMiB = cacheMiB
        self.mmapMiB = mmapMiB
    }

    /// 8, not SQLite-as-we-had-it 64: a larger cache only held a second copy of the pages the
    /// writer had just written (clicks, installs, capture-event and init at the same rate with 8).
    public static let defaultCacheMiB = 8
    /// No map: a growing file is mapped again and again as it grows (`munmap` was 2% of an install
    /// answer's CPU), and every page read through the map stays in the process's resident set.
    /// Same build and run, map off against 256 MiB: installs 1.19×, clicks 1.00×, and 87–90 MB
    /// resident after the click load instead of 221–345 MB (docs/performance.md, "Memory").
    public static let defaultMmapMiB = 0

    func apply(to connection: SQLiteConnection) throws {
        try connection.execute("PRAGMA cache_size = -\(cacheMiB * 1024)")
        try connection.execute("PRAGMA mmap_size = \(mmapMiB << 20)")
    }
}
