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

    /// 8, not SQLite-as-we-had-it 64: with the file memory-mapped, reads are served from the map,
    /// and a larger cache only held a second copy of the pages the writer had just written
    /// (clicks, installs, capture-event and init at the same rate with 8; docs/performance.md).
    public static let defaultCacheMiB = 8
    public static let defaultMmapMiB = 256

    func apply(to connection: SQLiteConnection) throws {
        try connection.execute("PRAGMA cache_size = -\(cacheMiB * 1024)")
        try connection.execute("PRAGMA mmap_size = \(mmapMiB << 20)")
    }
}
