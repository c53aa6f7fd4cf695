import Testing
@testable import API
import Attribution
import HTTP

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
