/// The module grid while a symbol is built: function patterns first, then codewords, then the
/// mask and the format information (ISO/IEC 18004, 6.3 and 7.7–7.9).
struct QRCodeGrid {
    let version: Int
    let size: Int
    private(set) var dark: [Bool]
    /// Modules of function patterns, which codewords and masks leave alone.
    private var reserved: [Bool]

    init(version: Int) {
        self.version = version
        size = QRCodeCapacity.sideLength(of: version)
        dark = Array(repeating: false, count: size * size)
        reserved = dark
    }

    private mutating func setFunction(x: Int, y: Int, _ isDark: Bool) {
        dark[y * size + x] = isDark
        reserved[y * size + x] = true
    }

    mutating func drawFunctionPatterns() {
        for index in 0..<size {  // timing patterns (6.3.5)
            setFunction(x: 6, y: index, index % 2 == 0)
            setFunction(x: index, y: 6, index % 2 == 0)
        }
        drawFinder(centreX: 3, centreY: 3)
        drawFinder(centreX: size - 4, centreY: 3)
        drawFinder(centreX: 3, centreY: size - 4)

        let centres = QRCodeCapacity.alignmentCentres(of: version)
        for (row, y) in centres.enumerated() {
            for (column, x) in centres.enumerated() {
                let last = centres.count - 1
                // The three corners that a finder already holds.
                if (row == 0 && column == 0) || (row == 0 && column == last) || (row == last && column == 0) { continue }
                for dy in -2...2 {
                    for dx in -2...2 { setFunction(x: x + dx, y: y + dy, max(abs(dx), abs(dy)) != 1) }
                }
            }
        }
        // Reserve the format areas now; their bits depend on the mask (drawn in `apply`).
        drawFormatBits(0)
        drawVersionBits()
    }

    /// A 7×7 finder with its light separator, clipped to the symbol (6.3.3).
    private mutating func drawFinder(centreX: Int, centreY: Int) {
        for dy in -4...4 {
            for dx in -4...4 {
                let x = centreX + dx
                let y = centreY + dy
                guard (0..<size).contains(x), (0..<size).contains(y) else { continue }
                let ring = max(abs(dx), abs(dy))
                setFunction(x: x, y: y, ring != 2 && ring != 4)
            }
        }
    }

    /// Fifteen bits: correction level and mask, BCH(15,5)-protected, XORed with 101010000010010
    /// so that they are never all light (7.9.1). Two copies, plus the always-dark module.
    private mutating func drawFormatBits(_ bits: Int) {
        func bit(_ index: Int) -> Bool { bits >> index & 1 == 1 }
        for index in 0...5 { setFunction(x: 8, y: index, bit(index)) }
        setFunction(x: 8, y: 7, bit(6))
        setFunction(x: 8, y: 8, bit(7))
        setFunction(x: 7, y: 8, bit(8))
        for index in 9..<15 { setFunction(x: 14 - index, y: 8, bit(index)) }
        for index in 0..<8 { setFunction(x: size - 1 - index, y: 8, bit(index)) }
        for index in 8..<15 { setFunction(x: 8, y: size - 15 + index, bit(index)) }
        setFunction(x: 8, y: size - 8, true)
    }

    static func formatBits(mask: Int, _ correction: QRCode.Correction) -> Int {
        let data = correction.formatBits << 3 | mask
        var remainder = data
        for _ in 0..<10 { remainder = remainder << 1 ^ (remainder >> 9) * 0x537 }
        return (data << 10 | remainder) ^ 0x5412
    }

    /// From version 7: six bits of version, BCH(18,6)-protected, in two 6×3 blocks (7.10).
    private mutating func drawVersionBits() {
        guard version >= 7 else { return }
        var remainder = version
        for _ in 0..<12 { remainder = remainder << 1 ^ (remainder >> 11) * 0x1F25 }
        let bits = version << 12 | remainder
        for index in 0..<18 {
            let isDark = bits >> index & 1 == 1
            let a = size - 11 + index % 3
            let b = index / 3
            setFunction(x: a, y: b, isDark)
            setFunction(x: b, y: a, isDark)
        }
    }

    /// Codeword bits, most significant first, in two-module columns from the right, upwards then
    /// downwards, stepping over the vertical timing pattern (7.7.3). Leftover modules stay light.
    mutating func placeCodewords(_ codewords: [UInt8]) {
        var bitIndex = 0
        let bitCount = codewords.count * 8
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            let upwards = (right + 1) & 2 == 0
            for step in 0..<size {
                let y = upwards ? size - 1 - step : step
                for x in [right, right - 1] where !reserved[y * size + x] && bitIndex < bitCount {
                    dark[y * size + x] = codewords[bitIndex >> 3] >> (7 - UInt8(bitIndex & 7)) & 1 == 1
                    bitIndex += 1
                }
            }
            right -= 2
        }
    }

    /// Whether mask pattern `mask` (Table 10) inverts the module at column x, row y.
    static func masks(_ mask: Int, x: Int, y: Int) -> Bool {
        switch mask {
        case 0: (x + y) % 2 == 0
        case 1: y % 2 == 0
        case 2: x % 3 == 0
        case 3: (x + y) % 3 == 0
        case 4: (x / 3 + y / 2) % 2 == 0
        case 5: x * y % 2 + x * y % 3 == 0
        case 6: (x * y % 2 + x * y % 3) % 2 == 0
        default: ((x + y) % 2 + x * y % 3) % 2 == 0
        }
    }

    mutating func apply(mask: Int, _ correction: QRCode.Correction) {
        for y in 0..<size {
            for x in 0..<size where !reserved[y * size + x] && Self.masks(mask, x: x, y: y) { dark[y * size + x].toggle() }
        }
        drawFormatBits(Self.formatBits(mask: mask, correction))
    }

    func penalty(withMask mask: Int, _ correction: QRCode.Correction) -> Int {
        var masked = self
        masked.apply(mask: mask, correction)
        return QRCodePenalty.score(masked.dark, size: size)
    }
}
