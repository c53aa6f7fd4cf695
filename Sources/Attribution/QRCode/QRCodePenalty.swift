/// The penalty of a masked symbol (ISO/IEC 18004, 7.8.3, Table 11); the mask with the lowest
/// one is used.
enum QRCodePenalty {
    static func score(_ dark: [Bool], size: Int) -> Int {
        var total = 0
        for line in 0..<size {
            let row = Line(dark: dark, start: line * size, step: 1, count: size)
            let column = Line(dark: dark, start: line, step: size, count: size)
            total += runs(row) + finderLikePatterns(row) + runs(column) + finderLikePatterns(column)
        }
        total += sameColourBlocks(dark, size: size)
        total += darkProportion(dark)
        return total
    }

    /// A row or a column of the symbol.
    struct Line {
        let dark: [Bool]
        let start: Int, step: Int, count: Int

        subscript(index: Int) -> Bool { dark[start + index * step] }

        /// Beyond the symbol is the light quiet zone.
        func isLight(_ index: Int) -> Bool { index < 0 || index >= count || !self[index] }
    }

    /// 3 + (n − 5) for each run of n ≥ 5 modules of one colour.
    static func runs(_ line: Line) -> Int {
        var total = 0
        var length = 1
        for index in 1...line.count {
            if index < line.count && line[index] == line[index - 1] {
                length += 1
                continue
            }
            if length >= 5 { total += 3 + length - 5 }
            length = 1
        }
        return total
    }

    /// 3 for each 2×2 block of one colour (overlapping blocks each count).
    static func sameColourBlocks(_ dark: [Bool], size: Int) -> Int {
        var total = 0
        for y in 0..<size - 1 {
            for x in 0..<size - 1 {
                let module = dark[y * size + x]
                if dark[y * size + x + 1] == module, dark[(y + 1) * size + x] == module, dark[(y + 1) * size + x + 1] == module {
                    total += 3
                }
            }
        }
        return total
    }

    private static let finderLike = [true, false, true, true, true, false, true]

    /// 40 for each dark-light-dark-dark-dark-light-dark (1:1:3:1:1) with four light modules
    /// before or after it.
    static func finderLikePatterns(_ line: Line) -> Int {
        var total = 0
        for start in 0...(line.count - finderLike.count) {
            var matches = true
            for offset in 0..<finderLike.count where line[start + offset] != finderLike[offset] {
                matches = false
                break
            }
            guard matches else { continue }
            let end = start + finderLike.count
            if (1...4).allSatisfy({ line.isLight(start - $0) }) || (0..<4).allSatisfy({ line.isLight(end + $0) }) { total += 40 }
        }
        return total
    }

    /// 10 for each full 5% that the dark share is away from 50%.
    static func darkProportion(_ dark: [Bool]) -> Int {
        var darkCount = 0
        for module in dark where module { darkCount += 1 }
        // |dark / total − 1/2| ≥ k/20  ⇔  |20·dark − 10·total| ≥ k·total
        return 10 * (abs(20 * darkCount - 10 * dark.count) / dark.count)
    }
}
