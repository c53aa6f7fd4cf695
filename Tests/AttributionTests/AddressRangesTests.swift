import Testing

@testable import Attribution

/// Address lists flattened for binary search: nesting, both families, edges of the space.
@Suite struct AddressRangesTests {
    func block(_ bytes: [UInt8], _ length: Int, _ name: String, country: String? = nil) -> AddressRanges.Block {
        AddressRanges.Block(network: bytes, prefixLength: length, info: AddressInfo(addressClass: AddressClass(rawValue: name), country: country))
    }

    func classOf(_ ranges: AddressRanges, _ bytes: [UInt8]) -> String? { ranges.info(addressBytes: bytes)?.addressClass.rawValue }

    @Test func theNarrowestBlockWinsAndTheWiderOneResumesAfterIt() {
        let ranges = AddressRanges(blocks: [
            block([10, 0, 0, 0], 8, "wide"), block([10, 1, 0, 0], 16, "narrow"), block([10, 1, 2, 0], 24, "inner"),
        ])
        #expect(classOf(ranges, [10, 0, 255, 255]) == "wide")
        #expect(classOf(ranges, [10, 1, 0, 0]) == "narrow")
        #expect(classOf(ranges, [10, 1, 2, 200]) == "inner")
        #expect(classOf(ranges, [10, 1, 3, 0]) == "narrow")
        #expect(classOf(ranges, [10, 2, 0, 0]) == "wide")
        #expect(classOf(ranges, [10, 255, 255, 255]) == "wide")
        #expect(classOf(ranges, [11, 0, 0, 0]) == nil)
        #expect(classOf(ranges, [9, 255, 255, 255]) == nil)
        #expect(ranges.rangeCount == 5)
    }

    @Test func aLaterEqualBlockOverridesAnEarlierOne() {
        let ranges = AddressRanges(blocks: [block([192, 0, 2, 0], 24, "published"), block([192, 0, 2, 0], 24, "mine")])
        #expect(classOf(ranges, [192, 0, 2, 9]) == "mine")
    }

    @Test func ipv6AndIPv4KeepApartAndTheWholeSpaceWorks() {
        var v6 = [UInt8](repeating: 0, count: 16)
        v6[0] = 0x2A
        v6[1] = 0x02
        let ranges = AddressRanges(blocks: [block(v6, 16, "relay", country: "FR"), block([0, 0, 0, 0], 0, "everything-v4")])
        var inside = v6
        inside[15] = 7
        #expect(ranges.info(addressBytes: inside) == AddressInfo(addressClass: AddressClass(rawValue: "relay"), country: "FR"))
        var outside = v6
        outside[1] = 0x03
        #expect(classOf(ranges, outside) == nil)
        #expect(classOf(ranges, [255, 255, 255, 255]) == "everything-v4")
        #expect(classOf(ranges, [1, 2, 3]) == nil, "neither 4 nor 16 bytes")
        let all = AddressRanges(blocks: [block(v6, 0, "all")])
        #expect(classOf(all, [UInt8](repeating: 0xFF, count: 16)) == "all" && classOf(all, [0, 0, 0, 0]) == "all")
    }

    @Test func carrierNATIsKnownWithoutAList() {
        #expect(AddressRanges.builtIn.info(addressBytes: [100, 64, 0, 1])?.addressClass == .carrierNAT)
        #expect(AddressRanges.builtIn.info(addressBytes: [100, 127, 255, 255])?.addressClass == .carrierNAT)
        #expect(AddressRanges.builtIn.info(addressBytes: [100, 128, 0, 0]) == nil)
    }

    @Test func manyDisjointBlocksAreFoundByBinarySearch() {
        let blocks = (0..<5000).map { index in
            block([172, 16 + UInt8(index / 256), UInt8(index % 256), 0], 27, index.isMultiple(of: 2) ? "even" : "odd")
        }
        let ranges = AddressRanges(blocks: blocks.shuffled())
        #expect(classOf(ranges, [172, 16, 4, 31]) == "even")
        #expect(classOf(ranges, [172, 16, 4, 32]) == nil)
        #expect(classOf(ranges, [172, 35, 135, 1]) == "odd")
    }
}
