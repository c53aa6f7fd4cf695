import Foundation
import Testing

@testable import HTTP

@Suite struct JSONValueParserTests {
    private func parse(_ text: String) throws -> JSONValue { try JSONValueParser.parse(Array(text.utf8)) }

    @Test func parsesEveryKindOfValue() throws {
        let value = try parse(
            #" {"s":"a\"b\\c\/d\n\u00e9\ud83d\ude00","n":-12.5e2,"i":63,"z":0,"t":true,"f":false,"x":null,"a":[1,[],{}],"o":{"k":"v"}} "#)
        guard case .object(let fields) = value else {
            Issue.record("not an object")
            return
        }
        #expect(fields["s"] == .string("a\"b\\c/d\né😀"))
        #expect(fields["n"] == .number(-1250))
        #expect(fields["i"] == .number(63) && fields["z"] == .number(0))
        #expect(fields["t"] == .bool(true) && fields["f"] == .bool(false) && fields["x"] == .null)
        #expect(fields["a"] == .array([.number(1), .array([]), .object([:])]))
        #expect(fields["o"] == .object(["k": .string("v")]))
    }

    @Test func rejectsWhatRFC8259Rejects() {
        let invalid = [
            "", "{", "{\"a\":}", "{\"a\" 1}", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "+1", "1e", "tru", "nul",
            "\"unterminated", "\"bad \\x escape\"", "\"\\ud83d alone\"", "\"\\ude00\"", "\"tab\there\"", "{} {}",
            "NaN", "1e999", "{'a':1}",
        ]
        for text in invalid {
            #expect(throws: HTTPError.self, "\(text)") { try parse(text) }
        }
    }

    @Test func aKeyRepeatedInOneObjectIsRefusedNamed() throws {
        #expect(throws: HTTPError.self) { try parse(#"{"a":1,"a":2}"#) }
        do {
            _ = try parse(#"{"o":{"k":1,"x":2,"k":3}}"#)
            Issue.record("accepted")
        } catch let error as HTTPError { #expect(error.message.contains("duplicate key 'k'")) } catch { Issue.record("\(error)") }
        #expect(try parse(#"{"a":{"k":1},"b":{"k":2}}"#) == .object(["a": .object(["k": .number(1)]), "b": .object(["k": .number(2)])]))
    }

    @Test func wholeNumbersReadDirectlyEqualWhatTextConversionGives() throws {
        // Up to 15 characters take the integer path; longer ones and fractions go through Double(String).
        for text in [
            "0", "-0", "7", "-42", "123456789012345", "-12345678901234", "1234567890123456", "9007199254740993",
            "1e3", "2.50", "-0.0",
        ] {
            let parsed = try parse(text)
            #expect(parsed == .number(Double(text)!), "\(text)")
            if case .number(let number) = parsed { #expect(number.sign == Double(text)!.sign, "\(text)") }
        }
    }

    @Test func refusesDeepNestingInsteadOfOverflowingTheStack() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect { try parse(deep) } throws: { ($0 as? HTTPError)?.message.contains("nested deeper") == true }
        let allowed = String(repeating: "[", count: 60) + String(repeating: "]", count: 60)
        _ = try parse(allowed)
    }

    @Test func serializesSortedCompactAndRoundTrips() throws {
        let value: JSONValue = .object([
            "b": .number(63), "a": .string("x\"y\n"), "c": .array([.number(0.25), .null, .bool(true)]),
            "d": .number(.infinity),
        ])
        let text = String(decoding: value.serialized(), as: UTF8.self)
        #expect(text == #"{"a":"x\"y\n","b":63,"c":[0.25,null,true],"d":null}"#)
        #expect(
            try parse(text) == .object(["a": .string("x\"y\n"), "b": .number(63), "c": .array([.number(0.25), .null, .bool(true)]), "d": .null]))
        // Foundation agrees it is valid JSON.
        #expect(try JSONSerialization.jsonObject(with: Data(value.serialized())) is [String: Any])
    }
}

@Suite struct ByteTextTests {
    private func decimal(_ value: Int) -> String {
        var bytes: [UInt8] = []
        ByteText.appendDecimal(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private func jsonString(_ text: String) -> String {
        var bytes: [UInt8] = []
        ByteText.appendJSONString(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func decimalsMatchSwiftsOwnFormatting() {
        for value in [0, 7, 10, 99, 100, 200, 65_535, -1, -42, 1_000_000_007, Int.max, Int.min] {
            #expect(decimal(value) == String(value))
        }
    }

    @Test func jsonStringsEscapeWhatRFC8259RequiresAndRoundTrip() throws {
        #expect(jsonString("plain é 😀") == "\"plain é 😀\"")
        #expect(jsonString("q\"b\\") == #""q\"b\\""#)
        #expect(jsonString("a\nb\rc\td\u{01}") == #""a\nb\rc\td\u0001""#)
        for text in ["", "x", "tab\tand\u{1F}unit", "\"\"", "é\u{0}"] {
            #expect(try JSONValueParser.parse(Array(jsonString(text).utf8)) == .string(text))
        }
    }
}
