import Foundation

/// Per-client token buckets (servers key them by `SocketAddress.clientKey`: an IPv4 address, or
/// an IPv6 /64, which one subscriber or host holds whole): `ratePerSecond` tokens a second, at most `burst` banked. Memory is
/// bounded: the table lives in shards of at most `maxClientsPerShard` clients; a full shard first
/// forgets clients whose buckets have refilled (they are indistinguishable from new ones), then,
/// if still full, starts over — a flood of addresses can cost memory up to the cap, never beyond.
public final class RateLimiter<Client: Hashable & Sendable>: @unchecked Sendable {
    public typealias Settings = RateLimitSettings

    private struct Bucket {
        var tokens: Double
        var updated: UInt64
    }

    private final class Shard {
        let lock = NSLock()
        var buckets: [Client: Bucket] = [:]  // guarded by `lock`
    }

    public let settings: Settings
    private let shards: [Shard]
    private let maxClientsPerShard: Int

    public init(settings: Settings, maxClients: Int = 200_000, shardCount: Int = 16) {
        self.settings = settings
        shards = (0..<shardCount).map { _ in Shard() }
        maxClientsPerShard = max(1, maxClients / shardCount)
    }

    /// nil when the request may go ahead; otherwise the seconds until it could.
    /// - Parameter consume: false only looks (for a budget spent by failures alone, checked first).
    public func retryAfter(client: Client, now: UInt64, consume: Bool = true) -> Double? {
        let shard = shards[Int(UInt(bitPattern: client.hashValue) % UInt(shards.count))]
        shard.lock.lock()
        defer { shard.lock.unlock() }
        var bucket = shard.buckets[client] ?? Bucket(tokens: settings.burst, updated: now)
        // `now` was read before the lock: a concurrent request may have stored a later one. Time
        // never runs back here (a wrapped `now &- updated` refilled the whole bucket: 6,060
        // requests in 10 s through a budget of 1,200 from 16 connections).
        let elapsed = now > bucket.updated ? Double(now - bucket.updated) / 1e9 : 0
        bucket.tokens = min(settings.burst, bucket.tokens + elapsed * settings.ratePerSecond)
        bucket.updated = max(bucket.updated, now)
        if !consume { return bucket.tokens >= 1 ? nil : (1 - bucket.tokens) / settings.ratePerSecond }
        if bucket.tokens >= 1 {
            bucket.tokens -= 1
            store(bucket, for: client, in: shard, now: now)
            return nil
        }
        store(bucket, for: client, in: shard, now: now)
        return (1 - bucket.tokens) / settings.ratePerSecond
    }

    /// Gives back one token taken by `retryAfter` (an attempt that turned out not to count).
    public func refund(client: Client) {
        let shard = shards[Int(UInt(bitPattern: client.hashValue) % UInt(shards.count))]
        shard.lock.withLock {
            if var bucket = shard.buckets[client] {
                bucket.tokens = min(settings.burst, bucket.tokens + 1)
                shard.buckets[client] = bucket
            }
        }
    }

    /// Clients currently remembered (for tests and metrics).
    public var trackedClients: Int { shards.reduce(0) { total, shard in shard.lock.withLock { total + shard.buckets.count } } }

    private func store(_ bucket: Bucket, for client: Client, in shard: Shard, now: UInt64) {
        if shard.buckets[client] == nil, shard.buckets.count >= maxClientsPerShard {
            let refill = settings.burst / settings.ratePerSecond
            shard.buckets = shard.buckets.filter { now < $0.value.updated || Double(now - $0.value.updated) / 1e9 < refill }
            if shard.buckets.count >= maxClientsPerShard { shard.buckets.removeAll(keepingCapacity: true) }
        }
        shard.buckets[client] = bucket
    }
}

/// A token bucket's refill rate and size.
public struct RateLimitSettings: Sendable, Equatable {
    public var ratePerSecond: Double
    public var burst: Double
    public init(ratePerSecond: Double, burst: Double) {
        self.ratePerSecond = ratePerSecond
        self.burst = burst
    }
}

/// A wait from `RateLimiter.retryAfter` as whole seconds for `Retry-After` and messages: at least
/// 1, at most a day, never a trap (a bucket's settings could make the wait any double).
func retryAfterSeconds(_ wait: Double) -> Int {
    guard wait.isFinite else { return 86_400 }
    return Int(min(max(wait.rounded(.up), 1), 86_400))
}
