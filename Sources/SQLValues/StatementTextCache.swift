import Synchronization

/// Statement texts made from a few parts (which keys a report has, which reads the cascade
/// makes), built once per combination instead of per request: the same text each time also lets
/// the connections' lookups by text compare one string with itself.
public final class StatementTextCache<Key: Hashable & Sendable>: Sendable {
    private let texts = Mutex<[Key: String]>([:])

    public init() {}

    public func text(for key: Key, build: () -> String) -> String {
        if let text = texts.withLock({ $0[key] }) { return text }
        let text = build()
        texts.withLock { $0[key] = text }
        return text
    }
}
