import Attribution
import HTTP
import Testing

@testable import API

@Suite struct ClientIPTests {
    private let resolver = ClientIPResolver(trustedProxies: ["127.0.0.1", "10.0.0.0/8"])

    private func client(_ forwarded: [String], peer: String = "127.0.0.1", name: String = "X-Forwarded-For") -> String? {
        var headers = HTTPHeaders()
        for value in forwarded { headers.add(name, value) }
        let request = HTTPRequest(method: .get, target: "/", headers: headers, remoteAddress: SocketAddress(ip: peer, port: 5000))
        return resolver.clientAddress(of: request)?.ipString
    }

    @Test func theRightMostUntrustedHopIsTheClient() {
        #expect(client(["198.51.100.7"]) == "198.51.100.7")
        #expect(client([" 198.51.100.7\t"]) == "198.51.100.7")
        #expect(client(["203.0.113.1, 198.51.100.7, 10.1.2.3"]) == "198.51.100.7")
        #expect(client(["203.0.113.1", "198.51.100.7"]) == "198.51.100.7")
        #expect(client(["198.51.100.7:4711"]) == "198.51.100.7")
        #expect(client(["[2001:db8::1]:443"]) == "2001:db8::1")
        #expect(client(["\"[2001:db8::1]\""]) == "2001:db8::1")
        #expect(client(["for=192.0.2.60;proto=http, for=\"[2001:db8::2]:4711\""], name: "Forwarded") == "2001:db8::2")
        // An unparseable hop ends the trusted chain: the peer itself is the client.
        #expect(client(["not-an-address"]) == "127.0.0.1")
        // Headers from an untrusted peer are ignored.
        #expect(client(["198.51.100.7"], peer: "192.0.2.9") == "192.0.2.9")
    }

    @Test func ipv4TextAndMatchingKeysAreTheDottedAddress() throws {
        for text in ["0.0.0.0", "255.255.255.255", "10.0.100.9", "1.20.3.199", "198.18.39.250"] {
            let address = try #require(SocketAddress(ip: text))
            #expect(address.ipString == text)
            #expect(address.matchingKey == text)
            #expect(address.matchingKey == NetworkKey.key(addressBytes: address.addressBytes))
        }
        let mapped = try #require(SocketAddress(ip: "::ffff:192.0.2.33"))
        #expect(mapped.ipString == "192.0.2.33" && mapped.matchingKey == "192.0.2.33")
        let v6 = try #require(SocketAddress(ip: "2001:db8:1:2:aaaa::1"))
        #expect(v6.matchingKey == "2001:db8:1:2::/64")
    }
}

@Suite struct EscapingTests {
    @Test func htmlEscapesTheFiveSpecialCharactersOnly() {
        #expect(Escape.html("https://example.com/a?b=1&c=2") == "https://example.com/a?b=1&amp;c=2")
        #expect(Escape.html(#"<a href="x">'é'</a>"#) == "&lt;a href=&quot;x&quot;&gt;&#39;é&#39;&lt;/a&gt;")
        #expect(Escape.html("plain é 😀") == "plain é 😀")
    }

    @Test func javascriptStringsCannotCloseTheScriptOrBreakTheLine() {
        #expect(Escape.javascriptString("/c/0193") == #""/c/0193""#)
        #expect(Escape.javascriptString("</script><x>&") == #""\u003c/script\u003e\u003cx\u003e\u0026""#)
        #expect(Escape.javascriptString("q\"b\\n\nr\r\u{1}") == #""q\"b\\n\nr\r\u0001""#)
        #expect(Escape.javascriptString("a\u{2028}b\u{2029}c") == #""a\u2028b\u2029c""#)
        // E2 starts other characters too: those stay as they are.
        #expect(Escape.javascriptString("€ → é") == "\"€ → é\"")
        #expect(Escape.javascriptString("") == "\"\"")
    }

    @Test func noncesAre32HexDigitsAndDiffer() {
        let nonces = (0..<50).map { _ in Identifiers.nonce() }
        #expect(nonces.allSatisfy { $0.utf8.count == 32 && $0.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) } })
        #expect(Set(nonces).count == 50)
    }

    @Test func characterPrefixesCountCharactersNotBytes() {
        #expect("abc".prefix(characters: 2) == "ab")
        #expect("abc".prefix(characters: 3) == "abc")
        #expect("éééé".prefix(characters: 3) == "ééé")
        #expect("éé".prefix(characters: 3) == "éé")
        #expect("👍🏽👍🏽".prefix(characters: 1) == "👍🏽")
    }
}
