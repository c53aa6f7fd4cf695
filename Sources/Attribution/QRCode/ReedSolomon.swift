/// Reed–Solomon error correction over GF(2⁸) with the QR code's field polynomial
/// x⁸ + x⁴ + x³ + x² + 1 (ISO/IEC 18004, 7.5.2).
struct ReedSolomon {
    private static let (exponents, logarithms): ([UInt8], [UInt8]) = {
        var exponents = [UInt8](repeating: 0, count: 256)
        var logarithms = [UInt8](repeating: 0, count: 256)
        var value = 1
        for power in 0..<255 {
            exponents[power] = UInt8(value)
            logarithms[value] = UInt8(power)
            value <<= 1
            if value & 0x100 != 0 { value ^= 0x11D }
        }
        exponents[255] = exponents[0]
        return (exponents, logarithms)
    }()

    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        if a == 0 || b == 0 { return 0 }
        return exponents[(Int(logarithms[Int(a)]) + Int(logarithms[Int(b)])) % 255]
    }

    /// The generator (x − α⁰)(x − α¹)…(x − α^(degree−1)), highest power first, its leading 1
    /// left out.
    let generator: [UInt8]

    init(degree: Int) {
        var coefficients = [UInt8](repeating: 0, count: degree)
        coefficients[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            // Multiply by (x − root); minus is plus in GF(2⁸).
            for index in 0..<degree {
                coefficients[index] = Self.multiply(coefficients[index], root)
                if index + 1 < degree { coefficients[index] ^= coefficients[index + 1] }
            }
            root = Self.multiply(root, 2)
        }
        generator = coefficients
    }

    /// The error correction codewords of `data`: its remainder modulo the generator.
    func remainder(of data: ArraySlice<UInt8>) -> [UInt8] {
        var remainder = [UInt8](repeating: 0, count: generator.count)
        for byte in data {
            let factor = byte ^ remainder[0]
            remainder.removeFirst()
            remainder.append(0)
            for index in remainder.indices { remainder[index] ^= Self.multiply(generator[index], factor) }
        }
        return remainder
    }
}
