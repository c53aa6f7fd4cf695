import Testing

@testable import Attribution

/// Reference symbols were made by two independent encoders (python-qrcode 8.2 with the same
/// version and mask; segno 1.6 agrees wherever the stream does not end on a byte boundary) and
/// read back by the zxing-cpp decoder.
struct QRCodeTests {
    private static func rows(_ code: QRCode) -> [String] {
        (0..<code.size).map { y in String((0..<code.size).map { code.isDark(x: $0, y: y) ? "1" : "0" }) }
    }

    @Test func aLinkURLMakesTheReferenceSymbol() throws {
        let code = try QRCode(text: "https://links.example.com/summer/Ab3dE5gH", correction: .medium)
        #expect(code.version == 3)
        #expect(code.mask == 3)
        #expect(
            Self.rows(code) == [
                "11111110111100001011101111111",
                "10000010100010001000101000001",
                "10111010010111011010101011101",
                "10111010111010111101001011101",
                "10111010010000110001101011101",
                "10000010000101101111101000001",
                "11111110101010101010101111111",
                "00000000100100010110000000000",
                "10110111000010001111001001011",
                "10011100110100101111101110001",
                "00110110101110001110100010110",
                "11001101011111101011110010001",
                "01111011110001110111010001100",
                "01100100011110101001001000111",
                "11000110101110100111010010111",
                "00111101001010101000011100010",
                "00001011001000010010010111010",
                "00011000101110011010100101110",
                "10001111100010010110100110100",
                "00101001111100110110010110100",
                "01100111011111000110111111100",
                "00000000101101001000100011111",
                "11111110100101001111101011010",
                "10000010100110000010100011011",
                "10111010011100110100111110111",
                "10111010100010111001110111001",
                "10111010110010100011010100101",
                "10000010001101011000111011010",
                "11111110100111110011100010010",
            ])
    }

    /// Version 8: several blocks of two lengths, three alignment rows, version information.
    @Test func aLongerURLAtQuartileMakesTheReferenceSymbolWithVersionInformation() throws {
        let url = "https://links.example.com/spring-campaign-2026/Zx81Qw7P?utm_source=poster&utm_medium=print&utm_campaign=s"
        let code = try QRCode(text: url, correction: .quartile, mask: 6)
        #expect(code.version == 8)
        let hexRows = Self.rows(code).map { row in
            let value = row.reduce(UInt64(0)) { $0 << 1 | ($1 == "1" ? 1 : 0) }
            let hex = String(value, radix: 16)
            return String(repeating: "0", count: 13 - hex.count) + hex
        }
        #expect(
            hexRows == [
                "1fcd0356c797f",
                "105ae9bc1d741",
                "174eb1c134b5d",
                "175ec45d7325d",
                "1757abffc985d",
                "104df44732c41",
                "1fd555555557f",
                "0012e74540300",
                "0bd7bbfd4b6da",
                "1b332872fffff",
                "166fcb2caf931",
                "0c30d78bf2e5c",
                "04d0685cd5251",
                "0627c68cd94da",
                "1068561093ebb",
                "0693c8576248f",
                "0a78a77b31f54",
                "09aa59bfedb60",
                "03e021bbc985d",
                "0d819b09ce04b",
                "19f8b834e9542",
                "11986c3bdc7d4",
                "09ffe5fe0f1f9",
                "0515c8c514d1d",
                "0d5a64545955a",
                "1f1b78c5eaf10",
                "0df2147c19dfd",
                "05882956484bd",
                "0aff8c7c5530d",
                "1312b5007f0a6",
                "0443f4247417d",
                "19b7e81280e11",
                "0469bc47a37d3",
                "1909df87cdeb6",
                "18e84f3a2f04f",
                "082b0450feea4",
                "186b9f4db5649",
                "0c80929adb658",
                "08dd924e1bed7",
                "0e2ffa66aeb2f",
                "1c4f8efc95ff7",
                "001842462cb1e",
                "1fc93ad7d815d",
                "10516cc70611b",
                "175188fd417f1",
                "175da6abcdcc8",
                "1747cd5a870f9",
                "105eed5cd0e6f",
                "1fceee75150b9",
            ])
    }

    /// ISO/IEC 18004 Annex I: the data codewords of "01234567" at 1-M and their ten error
    /// correction codewords.
    @Test func reedSolomonGivesTheStandardsWorkedExample() {
        let data: [UInt8] = [16, 32, 12, 86, 97, 128, 236, 17, 236, 17, 236, 17, 236, 17, 236, 17]
        #expect(ReedSolomon(degree: 10).remainder(of: data[...]) == [165, 36, 212, 193, 237, 54, 199, 135, 44, 85])
    }

    @Test(arguments: [
        (QRCode.Correction.low, 0, 0b111011111000100), (.medium, 0, 0b101010000010010),
        (.quartile, 0, 0b011010101011111), (.high, 0, 0b001011010001001), (.medium, 5, 0b100000011001110),
    ])
    func formatInformationMatchesTheStandardsTable(correction: QRCode.Correction, mask: Int, bits: Int) {
        #expect(QRCodeGrid.formatBits(mask: mask, correction) == bits)
    }

    /// The largest byte count of a version is placed in it, one more byte moves to the next.
    @Test(arguments: [
        (QRCode.Correction.low, 1, 17), (.medium, 1, 14), (.quartile, 1, 11), (.high, 1, 7),
        (.low, 10, 271), (.medium, 10, 213), (.quartile, 10, 151), (.high, 10, 119),
        (.low, 40, 2953), (.medium, 40, 2331), (.quartile, 40, 1663), (.high, 40, 1273),
    ])
    func versionsHoldTheStandardsByteCapacities(correction: QRCode.Correction, version: Int, capacity: Int) throws {
        #expect(try QRCode(bytes: Array(repeating: 0x61, count: capacity), correction: correction, mask: 0).version == version)
        if version < 40 {
            #expect(try QRCode(bytes: Array(repeating: 0x61, count: capacity + 1), correction: correction, mask: 0).version == version + 1)
        } else {
            #expect(QRCode.maximumBytes(correction) == capacity)
            #expect(throws: QRCode.TooLong(bytes: capacity + 1, maximum: capacity)) {
                try QRCode(bytes: Array(repeating: 0x61, count: capacity + 1), correction: correction)
            }
        }
    }

    /// Version 7's information is 000111 110010010100 (Annex D), in two 6×3 blocks.
    @Test func versionSevenCarriesItsVersionInformation() throws {
        let code = try QRCode(bytes: Array(repeating: 0x61, count: 154), correction: .low, mask: 0)
        #expect(code.version == 7)
        for index in 0..<18 {
            let expected = 0x07C94 >> index & 1 == 1
            let a = code.size - 11 + index % 3
            let b = index / 3
            #expect(code.isDark(x: a, y: b) == expected, "top-right block, bit \(index)")
            #expect(code.isDark(x: b, y: a) == expected, "bottom-left block, bit \(index)")
        }
    }

    @Test(arguments: ["https://l.example/abcdEFGH", "https://links.example.com/summer/Ab3dE5gH", String(repeating: "x", count: 300)])
    func theChosenMaskHasTheLowestPenalty(text: String) throws {
        let chosen = try QRCode(text: text)
        let penalties = try (0...7).map { mask in
            let code = try QRCode(text: text, mask: mask)
            return QRCodePenalty.score(code.modules, size: code.size)
        }
        #expect(penalties[chosen.mask] == penalties.min())
    }

    @Test func penaltyRulesScoreAsTheStandardSays() {
        func line(_ text: String) -> QRCodePenalty.Line {
            QRCodePenalty.Line(dark: text.map { $0 == "1" }, start: 0, step: 1, count: text.count)
        }
        #expect(QRCodePenalty.runs(line("1111111010")) == 5)  // a run of 7: 3 + 2
        #expect(QRCodePenalty.runs(line("1111000011")) == 0)
        #expect(QRCodePenalty.finderLikePatterns(line("00001011101")) == 40)
        #expect(QRCodePenalty.finderLikePatterns(line("1011101")) == 40)  // the quiet zone is light
        #expect(QRCodePenalty.finderLikePatterns(line("11001011101001")) == 0)
        #expect(QRCodePenalty.sameColourBlocks([true, true, true, true, true, true], size: 2) == 3)
        #expect(QRCodePenalty.darkProportion(Array(repeating: true, count: 100)) == 100)
        #expect(QRCodePenalty.darkProportion((0..<100).map { $0 < 56 }) == 10)  // 6% off: one full 5% step
        #expect(QRCodePenalty.darkProportion((0..<100).map { $0 < 39 }) == 20)
    }

    /// The SVG path, read back module by module, is the symbol, inside its quiet zone.
    @Test func theSVGDrawsEveryDarkModuleAndNothingElse() throws {
        let code = try QRCode(text: "https://links.example.com/summer/Ab3dE5gH")
        let svg = code.svg(margin: 2)
        let side = code.size + 4
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(side) \(side)\""))
        let path = try #require(svg.split(separator: "d=\"").last?.split(separator: "\"").first)
        var drawn = Array(repeating: false, count: side * side)
        for run in path.split(separator: "z") {
            let numbers = run.dropFirst().split(whereSeparator: { "hv -".contains($0) }).map { Int($0)! }
            let (x, y, length) = (numbers[0], numbers[1], numbers[2])
            for dx in 0..<length { drawn[y * side + x + dx] = true }
        }
        for y in 0..<side {
            for x in 0..<side {
                let inside = (2..<code.size + 2).contains(x) && (2..<code.size + 2).contains(y)
                #expect(drawn[y * side + x] == (inside && code.isDark(x: x - 2, y: y - 2)))
            }
        }
    }
}
