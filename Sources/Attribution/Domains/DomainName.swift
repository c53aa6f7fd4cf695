import Foundation

/// A domain name as a project may claim it: the form DNS and TLS carry (lower-cased, each label
/// of letters, digits and inner hyphens, internationalised labels encoded with Punycode as
/// `xn--…`, RFC 5890/3492), at least two labels, no IP literal and no wildcard (certificates are
/// issued per name).
public enum DomainName {
    /// The name in its ASCII form, or the reason it cannot be one.
    public static func normalized(_ text: String) -> Result<String, Refusal> {
        // As a browser reads a typed name (UTS #46): compatibility forms folded (fullwidth
        // letters, `．`), the ideographic full stops are dots; an invisible character is refused,
        // not dropped, so that no two spellings that look alike name different claims.
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .format || $0.properties.isDefaultIgnorableCodePoint }) {
            return .failure(.init("has an invisible character (zero-width or a format mark)"))
        }
        let folded = String(
            String.UnicodeScalarView(
                text.precomposedStringWithCompatibilityMapping.unicodeScalars.map { ["\u{3002}", "\u{FF61}"].contains($0) ? "." : $0 }))
        var name = folded.trimmingWhitespace()
        if name.hasSuffix(".") { name.removeLast() }  // the root's empty label
        guard !name.isEmpty else { return .failure(.init("is empty")) }
        if name.contains("*") { return .failure(.init("may not be a wildcard (a certificate is issued per name)")) }
        if name.contains(":") || name.contains("/") || name.contains("@") {
            return .failure(.init("must be a bare host name, without scheme, port, path or user"))
        }
        var labels: [String] = []
        for label in name.split(separator: ".", omittingEmptySubsequences: false) {
            guard !label.isEmpty else { return .failure(.init("has an empty label")) }
            let lowered = String(label).lowercased()
            let ascii: String
            if lowered.unicodeScalars.allSatisfy(\.isASCII) {
                ascii = lowered
            } else {
                guard let encoded = Punycode.encode(lowered) else { return .failure(.init("has a label that cannot be encoded")) }
                ascii = "xn--" + encoded
            }
            guard ascii.utf8.count <= 63 else { return .failure(.init("has a label longer than 63 characters")) }
            guard ascii.utf8.allSatisfy(Self.isLetterDigitHyphen) else {
                return .failure(.init("may hold only letters, digits, hyphens and dots"))
            }
            guard ascii.first != "-", ascii.last != "-" else { return .failure(.init("has a label that starts or ends with a hyphen")) }
            labels.append(ascii)
        }
        guard labels.count >= 2 else { return .failure(.init("needs at least two labels (links.example.com)")) }
        if labels.last!.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            return .failure(.init("may not be an IP address"))
        }
        let ascii = labels.joined(separator: ".")
        guard ascii.utf8.count <= 253 else { return .failure(.init("is longer than 253 characters")) }
        return .success(ascii)
    }

    public struct Refusal: Error, Sendable, Equatable {
        public let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    private static func isLetterDigitHyphen(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}

/// Punycode (RFC 3492), the encoding of an internationalised label's code points in ASCII.
enum Punycode {
    private static let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700, initialBias = 72, initialN = 128

    static func encode(_ label: String) -> String? {
        let input = label.unicodeScalars.map { Int($0.value) }
        var output = input.filter { $0 < 0x80 }.map { Character(Unicode.Scalar(UInt8($0))) }
        let basicCount = output.count
        var handled = basicCount
        if basicCount > 0 { output.append("-") }
        var n = initialN
        var delta = 0
        var bias = initialBias
        while handled < input.count {
            guard let m = input.filter({ $0 >= n }).min() else { return nil }
            let (product, overflow) = (m - n).multipliedReportingOverflow(by: handled + 1)
            guard !overflow else { return nil }
            delta += product
            n = m
            for code in input {
                if code < n { delta += 1 }
                if code == n {
                    var q = delta
                    var k = base
                    while true {
                        let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                        if q < t { break }
                        output.append(digit(t + (q - t) % (base - t)))
                        q = (q - t) / (base - t)
                        k += base
                    }
                    output.append(digit(q))
                    bias = adapt(delta, handled + 1, handled == basicCount)
                    delta = 0
                    handled += 1
                }
            }
            delta += 1
            n += 1
        }
        return String(output)
    }

    private static func digit(_ value: Int) -> Character {
        Character(Unicode.Scalar(UInt8(value < 26 ? value + 97 : value + 22)))
    }

    private static func adapt(_ delta: Int, _ count: Int, _ first: Bool) -> Int {
        var delta = first ? delta / damp : delta / 2
        delta += delta / count
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }
}
