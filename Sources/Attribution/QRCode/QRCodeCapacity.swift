/// How many codewords each version holds and how they split into error-correction blocks
/// (ISO/IEC 18004, Table 9). Index 0 of each table is unused, so a version indexes it directly.
enum QRCodeCapacity {
    private static let errorCorrectionCodewordsPerBlock: [QRCode.Correction: [Int]] = [
        .low: [
            0, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28,
            28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
        .medium: [
            0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
            26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28,
        ],
        .quartile: [
            0, 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30,
            28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
        .high: [
            0, 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28,
            30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
    ]

    private static let blocks: [QRCode.Correction: [Int]] = [
        .low: [
            0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8,
            8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25,
        ],
        .medium: [
            0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
            17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49,
        ],
        .quartile: [
            0, 1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20,
            23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68,
        ],
        .high: [
            0, 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25,
            25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81,
        ],
    ]

    static let versions = 1...40

    static func sideLength(of version: Int) -> Int { 17 + 4 * version }

    /// Modules left for codewords once every function pattern is drawn.
    static func codewordModules(of version: Int) -> Int {
        let side = sideLength(of: version)
        var modules = side * side
        modules -= 3 * 64 + 1  // finders with their separators, the dark module
        modules -= 2 * (side - 16)  // timing patterns between the finders
        modules -= 2 * 15  // two copies of the format information
        let alignment = alignmentCentres(of: version).count
        if alignment > 0 {
            // Every alignment pattern but the three that would sit on a finder; those in row or
            // column 6 overlap the timing pattern by 5 modules.
            let patterns = alignment * alignment - 3
            let onTiming = 2 * (alignment - 2)
            modules -= 25 * patterns - 5 * onTiming
        }
        if version >= 7 { modules -= 2 * 18 }  // two copies of the version information
        return modules
    }

    static func codewords(of version: Int) -> Int { codewordModules(of: version) / 8 }

    static func errorCorrectionPerBlock(_ version: Int, _ correction: QRCode.Correction) -> Int {
        errorCorrectionCodewordsPerBlock[correction]![version]
    }

    static func blockCount(_ version: Int, _ correction: QRCode.Correction) -> Int { blocks[correction]![version] }

    static func dataCodewords(_ version: Int, _ correction: QRCode.Correction) -> Int {
        codewords(of: version) - errorCorrectionPerBlock(version, correction) * blockCount(version, correction)
    }

    /// Row and column coordinates of alignment pattern centres (Annex E): 6, then evenly spaced
    /// (an even step) ending at side − 7.
    static func alignmentCentres(of version: Int) -> [Int] {
        guard version >= 2 else { return [] }
        let count = version / 7 + 2
        let last = sideLength(of: version) - 7
        // Annex E's one exception to the even, rounded-up step.
        let step = version == 32 ? 26 : ((last - 6) + (count - 1) * 2 - 1) / ((count - 1) * 2) * 2
        var centres = [6]
        for index in stride(from: count - 2, through: 0, by: -1) { centres.append(last - index * step) }
        return centres
    }
}
