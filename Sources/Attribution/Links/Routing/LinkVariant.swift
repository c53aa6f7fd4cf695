/// One arm of a link's A/B split: taps go to `url` in proportion to `weight`, and a visitor keeps
/// the arm first picked for them (`[LinkVariant].pick`), without a cookie.
public struct LinkVariant: Sendable, Equatable {
    /// Stored with each click and the install it leads to; the stats group by it.
    public var name: String
    public var url: String
    public var weight: Int

    public init(name: String, url: String, weight: Int) {
        self.name = name
        self.url = url
        self.weight = weight
    }
}

extension [LinkVariant] {
    /// The variant of `visitor` (a click's network key) on the link `linkID`: a hash of both
    /// mapped onto the weights, so the same visitor and link give the same variant on every node
    /// and after a restart, and visitors spread in proportion to the weights.
    public func pick(visitor: String, linkID: String) -> LinkVariant? {
        let total = reduce(0) { $0 + Swift.max(0, $1.weight) }
        guard total > 0 else { return nil }
        var point = Int(VisitorHash.of(linkID, visitor) % UInt64(total))
        for variant in self where variant.weight > 0 {
            if point < variant.weight { return variant }
            point -= variant.weight
        }
        return last
    }
}

/// FNV-1a over both keys, then SplitMix64's finaliser so that every bit depends on every input
/// byte (the low bits are what the modulo reads). Stable across processes, unlike `Hasher`.
enum VisitorHash {
    static func of(_ first: String, _ second: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in first.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        hash = (hash ^ 0xff) &* 0x100_0000_01b3
        for byte in second.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        hash ^= hash >> 30
        hash = hash &* 0xbf58_476d_1ce4_e5b9
        hash ^= hash >> 27
        hash = hash &* 0x94d0_49bb_1331_11eb
        return hash ^ (hash >> 31)
    }
}
