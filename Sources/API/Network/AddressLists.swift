public import App
public import Attribution
import Foundation
public import HTTP
import Synchronization

/// The operator's address lists (docs/traffic-quality.md), held so that `ip-lists update` and
/// the daily refresh can swap them while requests read them.
public final class AddressLists: Sendable {
    private let current: Mutex<AddressRanges>
    /// Whether a Private Relay list is loaded: only then are installs' relay regions read.
    private let relayLoaded: Atomic<Bool>
    /// Asked for an address no list names (`anonymous_ip_database`).
    private let database: (any AddressClassDatabase)?

    public init(_ ranges: AddressRanges = .builtIn, hasRelayList: Bool = false, database: (any AddressClassDatabase)? = nil) {
        current = Mutex(ranges)
        relayLoaded = Atomic(hasRelayList)
        self.database = database
    }

    public func replace(with ranges: AddressRanges, hasRelayList: Bool) {
        current.withLock { $0 = ranges }
        relayLoaded.store(hasRelayList, ordering: .releasing)
    }

    public var hasRelayList: Bool { relayLoaded.load(ordering: .acquiring) }

    /// The lists' class of the address (the operator's own lists win), else the database's.
    public func info(of address: SocketAddress) -> AddressInfo? {
        let bytes = (address.ipv4Mapped ?? address).addressBytes
        if let listed = current.withLock({ $0.info(addressBytes: bytes) }) { return listed }
        return database?.addressClass(ofIP: address.ipString).map { AddressInfo(addressClass: $0) }
    }

    /// A client's network as matching sees it: the key its clicks and installs are compared by
    /// (a relay's region, nothing for a VPN exit), and the address's class.
    public struct Network: Sendable, Equatable {
        public var ipKey: String?
        public var addressClass: AddressClass?
    }

    public func network(of address: SocketAddress?) -> Network {
        guard let address else { return Network() }
        let info = self.info(of: address)
        switch info?.addressClass.treatment {
        case .sharedEgress?:
            // A relay's address says only where its strangers are; a VPN exit not even that.
            let region = info?.addressClass == .privateRelay ? info?.country : nil
            return Network(ipKey: region.map(NetworkKey.relay(region:)), addressClass: info?.addressClass)
        case .nonHuman?:
            // A server's address is no person's network: its clicks never win, its installs match by ids only.
            return Network(ipKey: nil, addressClass: info?.addressClass)
        default:
            return Network(ipKey: address.matchingKey, addressClass: info?.addressClass)
        }
    }

    /// The region key whose Private Relay taps an install may match besides its own network's:
    /// Apple's relay carries Safari on iPhones and iPads, and the install's country is its region.
    public func relayRegionKey(platform: UserAgentInfo.Platform?, country: String?) -> String? {
        guard hasRelayList, platform == .ios, let country else { return nil }
        return NetworkKey.relay(region: country)
    }
}

/// Reading the lists' files: Apple's `egress-ip-ranges.csv` and operators' CIDR lists.
public enum AddressListFile {
    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    /// `prefix,country,region,city,` per line (Apple's published format); lines that are not a
    /// prefix are skipped and counted, as Apple's file may grow columns.
    public static func privateRelay(_ text: String) -> (blocks: [AddressRanges.Block], skipped: Int) {
        var blocks: [AddressRanges.Block] = []
        var skipped = 0
        text.enumerateLines { line, _ in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard let first = fields.first, !first.isEmpty, let block = CIDRBlock(String(first.trimmingCharacters(in: .whitespaces))) else {
                if !line.trimmingCharacters(in: .whitespaces).isEmpty { skipped += 1 }
                return
            }
            func field(_ index: Int) -> String? {
                guard fields.count > index else { return nil }
                let value = fields[index].trimmingCharacters(in: .whitespaces)
                return value.isEmpty ? nil : value.uppercased()
            }
            let country = field(1).flatMap { $0.utf8.count == 2 ? $0 : nil }
            blocks.append(
                AddressRanges.Block(
                    network: block.network.addressBytes, prefixLength: block.prefixLength,
                    info: AddressInfo(addressClass: .privateRelay, country: country, region: field(2))))
        }
        return (blocks, skipped)
    }

    /// One CIDR (or address) per line; `#` starts a comment. A line that is neither is an error
    /// naming its number: an operator's own list is expected to be exact.
    public static func cidrs(_ text: String, addressClass: AddressClass) throws(Problem) -> [AddressRanges.Block] {
        var blocks: [AddressRanges.Block] = []
        var number = 0
        var problem: Problem?
        text.enumerateLines { line, stop in
            number += 1
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let trimmed = content.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { return }
            guard let block = CIDRBlock(trimmed) else {
                problem = Problem(description: "line \(number): '\(trimmed.prefix(60))' is not an address or CIDR block")
                stop = true
                return
            }
            blocks.append(
                AddressRanges.Block(
                    network: block.network.addressBytes, prefixLength: block.prefixLength, info: AddressInfo(addressClass: addressClass)))
        }
        if let problem { throw problem }
        return blocks
    }

    /// The built-in carrier NAT space, the relay list, then the operator's lists in their order
    /// (a later list wins where the same block appears twice).
    public static func load(privateRelay: String?, lists: [(addressClass: AddressClass, path: String)]) throws(Problem) -> (
        ranges: AddressRanges, summary: [String: Int]
    ) {
        var blocks = [AddressRanges.carrierNATSpace]
        var summary: [String: Int] = [:]
        func read(_ path: String) throws(Problem) -> String {
            guard let data = FileManager.default.contents(atPath: path) else { throw Problem(description: "cannot read \(path)") }
            return String(decoding: data, as: UTF8.self)
        }
        if let path = privateRelay {
            let (relay, _) = Self.privateRelay(try read(path))
            guard !relay.isEmpty else { throw Problem(description: "\(path) has no prefix in Apple's egress-ip-ranges.csv format") }
            blocks += relay
            summary[AddressClass.privateRelay.rawValue] = relay.count
        }
        for (addressClass, path) in lists {
            do {
                let listed = try cidrs(try read(path), addressClass: addressClass)
                blocks += listed
                summary[addressClass.rawValue, default: 0] += listed.count
            } catch {
                throw Problem(description: "\(path): \(error.description)")
            }
        }
        return (AddressRanges(blocks: blocks), summary)
    }
}
