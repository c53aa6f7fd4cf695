public import Attribution
import Cryptography
import Foundation
public import StoreContracts

/// The key that guards the admin API and the dashboard's admin sign-in. A configured key wins;
/// without one, a server that starts on a database with no project yet makes a key, keeps its
/// SHA-256 with the database (so every later start, and every node, answers to it) and shows it
/// once. A first run then leads somewhere, as Grafana's does, instead of to a sign-in page nobody
/// can pass.
public enum ServerAdminKey {
    public enum Origin: Sendable, Equatable {
        case configured
        /// Made by this start: the key itself, to be shown once.
        case madeNow(key: String)
        /// Made by an earlier start (or another node); only its hash is known.
        case madeBefore
        /// None: the admin API is off.
        case none
    }

    /// The hash the server answers to, and where it came from.
    public static func resolve(configured: String?, store: any StoreBackend, now: Timestamp) throws -> (hash: [UInt8]?, origin: Origin) {
        if let configured, !configured.isEmpty { return (Secrets.sha256(configured), .configured) }
        if let kept = try store.dashboard.generatedAdminKeyHash() { return (kept, .madeBefore) }
        guard try store.projects.list().isEmpty else { return (nil, .none) }
        let key = Secrets.generate(prefix: "adm_")
        let hash = Secrets.sha256(key)
        let kept = try store.dashboard.keepGeneratedAdminKeyHash(hash, at: now)
        return kept == hash ? (hash, .madeNow(key: key)) : (kept, .madeBefore)
    }

    /// Undoes `resolve`'s new key when the start failed before the key was shown (the port was
    /// taken, say): the next start makes and shows one. Kept keys of earlier starts stay.
    public static func forgetUnshown(_ origin: Origin, store: any StoreBackend) {
        guard case .madeNow(let key) = origin else { return }
        try? store.dashboard.forgetGeneratedAdminKeyHash(Secrets.sha256(key))
    }
}
