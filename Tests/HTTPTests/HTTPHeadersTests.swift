import HTTP
import Testing

@Suite struct HTTPHeadersTests {
    @Test func namesCompareIgnoringASCIICaseOnly() {
        #expect("Content-Length".equalsIgnoringASCIICase("content-LENGTH"))
        #expect("x-forwarded-for"[...].equalsIgnoringASCIICase("X-Forwarded-For"))
        #expect(!"Host".equalsIgnoringASCIICase("Hosts"))
        #expect(!"Hosts".equalsIgnoringASCIICase("Host"))
        #expect(!"Host".equalsIgnoringASCIICase(""))
        #expect("".equalsIgnoringASCIICase(""))
        // Only letters fold: '@' (0x40) and '`' (0x60), '[' and '{' differ by the same bit.
        #expect(!"a@b".equalsIgnoringASCIICase("a`b"))
        #expect(!"[".equalsIgnoringASCIICase("{"))
        // Not ASCII: compared as bytes, and lengths are counted in bytes.
        #expect(!"É".equalsIgnoringASCIICase("é"))
        #expect(!"é".equalsIgnoringASCIICase("e"))
    }

    @Test func lookupsFindTheFirstValueOfAnySpelling() {
        var headers: HTTPHeaders = ["Accept": "a", "X-Forwarded-For": "1.2.3.4", "x-forwarded-for": "5.6.7.8"]
        #expect(headers["X-FORWARDED-FOR"] == "1.2.3.4")
        #expect(headers.values(for: "x-Forwarded-for") == ["1.2.3.4", "5.6.7.8"])
        #expect(headers["Forwarded"] == nil)
        headers.set("ACCEPT", "b")
        #expect(headers.values(for: "accept") == ["b"])
    }
}
