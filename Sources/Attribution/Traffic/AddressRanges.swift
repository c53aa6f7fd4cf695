/// Address blocks and their classes, looked up by binary search: the blocks are flattened once
/// into disjoint, sorted ranges (the narrowest block wins where blocks nest), so a lookup is
/// about 17 comparisons for Apple's ~100k relay prefixes and never a scan.
public struct AddressRanges: Sendable {
    /// One block of a list: the network's bytes (4 or 16), its prefix length, what it is.
    public struct Block: Sendable, Equatable {
        public var network: [UInt8]
        public var prefixLength: Int
        public var info: AddressInfo

        public init(network: [UInt8], prefixLength: Int, info: AddressInfo) {
            self.network = network
            self.prefixLength = prefixLength
            self.info = info
        }
    }

    /// Range starts, ascending; `ends[i]` and `infos[i]` go with `starts[i]`.
    private let starts: [UInt128]
    private let ends: [UInt128]
    private let infoIndex: [Int32]
    private let infos: [AddressInfo]

    public var rangeCount: Int { starts.count }

    /// RFC 6598's shared address space, which carriers' NAT gateways use: always known.
    public static let carrierNATSpace = Block(network: [100, 64, 0, 0], prefixLength: 10, info: AddressInfo(addressClass: .carrierNAT))

    public static let builtIn = AddressRanges(blocks: [carrierNATSpace])

    /// Later blocks win over earlier ones of the same network and length (an operator's own list,
    /// given last, overrides a published one).
    public init(blocks: [Block]) {
        var infos: [AddressInfo] = []
        var indexOf: [AddressInfo: Int32] = [:]
        struct Span {
            var start: UInt128
            var end: UInt128
            var length: Int
            var order: Int
            var info: Int32
        }
        var spans: [Span] = []
        spans.reserveCapacity(blocks.count)
        for (order, block) in blocks.enumerated() {
            guard let (start, end, length) = Self.span(block) else { continue }
            let index: Int32
            if let known = indexOf[block.info] {
                index = known
            } else {
                index = Int32(infos.count)
                infos.append(block.info)
                indexOf[block.info] = index
            }
            spans.append(Span(start: start, end: end, length: length, order: order, info: index))
        }
        // A wider block before the narrower ones inside it; of two equal blocks, the later last.
        spans.sort { ($0.start, $0.length, $0.order) < ($1.start, $1.length, $1.order) }
        var starts: [UInt128] = []
        var ends: [UInt128] = []
        var owners: [Int32] = []
        func emit(_ start: UInt128, _ end: UInt128, _ info: Int32) {
            guard start <= end else { return }
            if let last = ends.last, last != .max, last + 1 == start, owners.last == info {
                ends[ends.count - 1] = end
                return
            }
            starts.append(start)
            ends.append(end)
            owners.append(info)
        }
        // The blocks that contain the sweep's position, outermost first; `cursor` is the first
        // address not yet given to a range (nil past the end of the address space).
        var open: [Span] = []
        var cursor: UInt128? = 0
        func close(upTo limit: UInt128?) {
            while let top = open.last, limit.map({ top.end < $0 }) ?? true {
                if let position = cursor, position <= top.end { emit(position, top.end, top.info) }
                cursor = top.end == .max ? nil : top.end + 1
                open.removeLast()
            }
        }
        for span in spans {
            close(upTo: span.start)
            if let top = open.last, let position = cursor, position < span.start { emit(position, span.start - 1, top.info) }
            cursor = span.start
            open.append(span)
        }
        close(upTo: nil)
        self.starts = starts
        self.ends = ends
        self.infoIndex = owners
        self.infos = infos
    }

    /// The class of an address given as 4 or 16 bytes in network order.
    public func info(addressBytes bytes: [UInt8]) -> AddressInfo? {
        guard let key = Self.key(bytes) else { return nil }
        var low = 0
        var high = starts.count
        // The last range starting at or before the key.
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= key { low = middle + 1 } else { high = middle }
        }
        guard low > 0, ends[low - 1] >= key else { return nil }
        return infos[Int(infoIndex[low - 1])]
    }

    /// IPv4 as its IPv4-mapped IPv6 address (`::ffff:a.b.c.d`), so one table holds both.
    static func key(_ bytes: [UInt8]) -> UInt128? {
        switch bytes.count {
        case 4:
            return UInt128(0xFFFF) << 32 | UInt128(bytes[0]) << 24 | UInt128(bytes[1]) << 16 | UInt128(bytes[2]) << 8 | UInt128(bytes[3])
        case 16:
            return bytes.reduce(UInt128(0)) { $0 << 8 | UInt128($1) }
        default:
            return nil
        }
    }

    private static func span(_ block: Block) -> (UInt128, UInt128, Int)? {
        guard let key = key(block.network) else { return nil }
        let length = block.network.count == 4 ? block.prefixLength + 96 : block.prefixLength
        guard (0...128).contains(length), block.prefixLength >= 0 else { return nil }
        let hostBits = 128 - length
        let mask: UInt128 = hostBits == 128 ? 0 : ~((UInt128(1) << hostBits) &- 1)
        let start = key & mask
        return (start, start | ~mask, length)
    }
}
