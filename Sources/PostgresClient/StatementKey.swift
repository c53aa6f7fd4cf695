import SQLValues

/// SQL text as a dictionary key, hashed by its length and its last bytes rather than all of it.
/// A connection looks its prepared statements and the answers read ahead up by their text on
/// every call, and tier 0's statement with the candidates is a few kilobytes: hashed whole, the
/// lookups were a tenth of a node's CPU during all-new inits (`perf`: `Hasher.combine(bytes:)`).
/// Texts alike in both are told apart by comparing them.
struct StatementText: Hashable {
    let text: String

    /// What is hashed: the end of a statement is where statements of one length differ most
    /// (their conditions, limits, branches).
    static let hashedSuffix = 64

    func hash(into hasher: inout Hasher) {
        let utf8 = text.utf8
        hasher.combine(utf8.count)
        let hashed: Void? = utf8.withContiguousStorageIfAvailable { bytes in
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.suffix(Self.hashedSuffix))))
        }
        if hashed == nil { hasher.combine(text) }
    }
}

/// A statement sent ahead and the values it was sent with: the query that asks the same is
/// handed its answer.
struct ReadAheadKey: Hashable {
    let statement: StatementText
    let values: [SQLValue]
}
