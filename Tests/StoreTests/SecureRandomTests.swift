import Attribution
import Cryptography
@_spi(StoreInternals) import Store
import StoreContracts
import Testing

@Suite struct SecureRandomTests {
    @Test func secureIDsAreVersion7UUIDsThatDoNotRepeat() {
        let id = TimeOrderedID.secure(at: Timestamp(milliseconds: 1_763_700_000_000))
        let characters = Array(id)
        #expect(id.count == 36 && id.hasPrefix("019aa4b6-4500-7"))
        #expect("89ab".contains(characters[19]))
        #expect(id.allSatisfy { "0123456789abcdef-".contains($0) })
        let many = Set((0..<2000).map { _ in TimeOrderedID.secure(at: Timestamp(milliseconds: 5)) })
        #expect(many.count == 2000)
    }

    @Test func numbersCoverAllBits() {
        var generator = SecureRandom()
        var seenOnes: UInt64 = 0
        var seenZeros: UInt64 = 0
        for _ in 0..<64 {
            let value = generator.next()
            seenOnes |= value
            seenZeros |= ~value
        }
        #expect(seenOnes == .max && seenZeros == .max)
    }

    /// Drawn across several refills of the 4 KiB pool, from several threads at once: no value
    /// comes out twice (64-bit random values colliding by chance is out of reach here).
    @Test func drawsAcrossPoolRefillsAndThreadsNeverRepeat() async {
        let perTask = 1_500
        let draws = await withTaskGroup(of: [UInt64].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var generator = SecureRandom()
                    return (0..<perTask).map { _ in generator.next() }
                }
            }
            return await group.reduce(into: [UInt64]()) { $0 += $1 }
        }
        #expect(draws.count == 4 * perTask)
        #expect(Set(draws).count == draws.count)
    }
}
