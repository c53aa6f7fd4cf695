/// A request the store refused for a reason the caller can act on (distinct from SQLite failures).
public enum StoreError: Error, Equatable, CustomStringConvertible {
    /// Would break a uniqueness rule (a name, slug or code already taken).
    case conflict(String)
    case notFound(String)
    /// The database cannot be reached right now (a restart, a failover): worth trying again soon.
    case unavailable(String)
    /// A value this database cannot hold (PostgreSQL's text cannot hold a NUL character).
    case unstorable(String)
    /// The disk the database is on is full: writes fail until space is freed.
    case storageFull(String)

    public var description: String {
        switch self {
        case .conflict(let message), .notFound(let message), .unavailable(let message), .unstorable(let message), .storageFull(let message): message
        }
    }
}

/// An error a database library throws through the stores as it is (SQLite's, say): callers above
/// the store tell a full disk from other failures without knowing the library.
public protocol DatabaseLibraryError: Error {
    /// No write succeeds until space is freed.
    var isStorageFull: Bool { get }
    /// A UNIQUE or PRIMARY KEY constraint refused a row.
    var isUniqueViolation: Bool { get }
    /// The library's own words, which name the constraint or index a refusal came from.
    var message: String { get }
}
