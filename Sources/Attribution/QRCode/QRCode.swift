/// A QR code (ISO/IEC 18004, model 2) holding bytes in byte mode: the smallest version that fits
/// at the chosen error correction level, with the mask of lowest penalty unless one is given.
public struct QRCode: Sendable, Equatable {
    public enum Correction: String, Sendable, CaseIterable {
        case low = "L"
        case medium = "M"
        case quartile = "Q"
        case high = "H"

        /// The two bits the format information carries (Table 12): not in L, M, Q, H order.
        var formatBits: Int {
            switch self {
            case .low: 1
            case .medium: 0
            case .quartile: 3
            case .high: 2
            }
        }
    }

    public struct TooLong: Error, Equatable {
        public let bytes: Int
        public let maximum: Int
    }

    public let version: Int
    public let correction: Correction
    public let mask: Int
    /// Modules per side, without a quiet zone.
    public let size: Int
    /// Row-major, true for dark.
    let modules: [Bool]

    public func isDark(x: Int, y: Int) -> Bool { modules[y * size + x] }

    public init(text: String, correction: Correction = .medium, mask: Int? = nil) throws {
        try self.init(bytes: Array(text.utf8), correction: correction, mask: mask)
    }

    public init(bytes: [UInt8], correction: Correction = .medium, mask: Int? = nil) throws {
        precondition(mask.map { (0...7).contains($0) } ?? true, "QR masks are 0 to 7")
        guard let version = QRCodeCapacity.versions.first(where: { Self.fits(bytes.count, version: $0, correction) }) else {
            throw TooLong(bytes: bytes.count, maximum: Self.maximumBytes(correction))
        }
        var grid = QRCodeGrid(version: version)
        grid.drawFunctionPatterns()
        grid.placeCodewords(Self.codewords(for: bytes, version: version, correction))
        let chosen = mask ?? (0...7).min { grid.penalty(withMask: $0, correction) < grid.penalty(withMask: $1, correction) }!
        grid.apply(mask: chosen, correction)
        self.version = version
        self.correction = correction
        self.mask = chosen
        self.size = grid.size
        self.modules = grid.dark
    }

    /// Bits a byte-mode segment of `count` bytes takes: mode, character count, data (7.4.5).
    private static func segmentBits(_ count: Int, version: Int) -> Int { 4 + countBits(version) + 8 * count }

    private static func countBits(_ version: Int) -> Int { version <= 9 ? 8 : 16 }

    private static func fits(_ count: Int, version: Int, _ correction: Correction) -> Bool {
        count < 1 << countBits(version) && segmentBits(count, version: version) <= QRCodeCapacity.dataCodewords(version, correction) * 8
    }

    public static func maximumBytes(_ correction: Correction) -> Int {
        (QRCodeCapacity.dataCodewords(40, correction) * 8 - 4 - 16) / 8
    }

    /// Data codewords with their error correction, interleaved block by block (7.5, 7.6).
    static func codewords(for bytes: [UInt8], version: Int, _ correction: Correction) -> [UInt8] {
        let capacity = QRCodeCapacity.dataCodewords(version, correction)
        var bits = BitBuffer()
        bits.append(0b0100, count: 4)  // byte mode
        bits.append(bytes.count, count: countBits(version))
        for byte in bytes { bits.append(Int(byte), count: 8) }
        bits.append(0, count: min(4, capacity * 8 - bits.count))  // terminator, as much as fits
        bits.append(0, count: (8 - bits.count % 8) % 8)
        var data = bits.bytes
        var pad: UInt8 = 0xEC
        while data.count < capacity {
            data.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }

        let blockCount = QRCodeCapacity.blockCount(version, correction)
        let correctionLength = QRCodeCapacity.errorCorrectionPerBlock(version, correction)
        let total = QRCodeCapacity.codewords(of: version)
        // Blocks differ by at most one data codeword; the longer ones come last.
        let shortBlockData = total / blockCount - correctionLength
        let longBlocks = total % blockCount
        let code = ReedSolomon(degree: correctionLength)
        var dataBlocks: [ArraySlice<UInt8>] = []
        var correctionBlocks: [[UInt8]] = []
        var start = 0
        for index in 0..<blockCount {
            let length = shortBlockData + (index >= blockCount - longBlocks ? 1 : 0)
            let block = data[start..<start + length]
            dataBlocks.append(block)
            correctionBlocks.append(code.remainder(of: block))
            start += length
        }
        var result: [UInt8] = []
        result.reserveCapacity(total)
        for position in 0...shortBlockData {
            for block in dataBlocks where position < block.count { result.append(block[block.startIndex + position]) }
        }
        for position in 0..<correctionLength {
            for block in correctionBlocks { result.append(block[position]) }
        }
        return result
    }
}

/// Bits appended most significant first.
struct BitBuffer {
    private(set) var bytes: [UInt8] = []
    private(set) var count = 0

    mutating func append(_ value: Int, count bitCount: Int) {
        for shift in stride(from: bitCount - 1, through: 0, by: -1) {
            if count % 8 == 0 { bytes.append(0) }
            if value >> shift & 1 == 1 { bytes[bytes.count - 1] |= 0x80 >> UInt8(count % 8) }
            count += 1
        }
    }
}
