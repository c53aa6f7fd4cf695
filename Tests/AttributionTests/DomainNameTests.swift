import Attribution
import Testing

@Suite struct DomainNameTests {
    @Test(arguments: [
        ("links.shop.test", "links.shop.test"),
        ("Links.Shop.TEST.", "links.shop.test"),
        ("  go.example.com ", "go.example.com"),
        ("bücher.example", "xn--bcher-kva.example"),
        ("münchen.de", "xn--mnchen-3ya.de"),
        ("例え.テスト", "xn--r8jz45g.xn--zckzah"),
        ("a-b.c1.example", "a-b.c1.example"),
    ])
    func aNameIsKeptInItsASCIIForm(_ input: String, _ expected: String) throws {
        #expect(try DomainName.normalized(input).get() == expected)
    }

    @Test(arguments: [
        ("", "is empty"),
        ("*.shop.test", "wildcard"),
        ("https://shop.test", "bare host name"),
        ("shop.test:8443", "bare host name"),
        ("localhost", "two labels"),
        ("192.168.0.1", "IP address"),
        ("[::1]", "bare host name"),
        ("-shop.test", "hyphen"),
        ("shop..test", "empty label"),
        ("shop_1.test", "letters, digits"),
        (String(repeating: "a", count: 64) + ".test", "63"),
    ])
    func aNameThatCannotBeAHostIsRefusedSayingWhy(_ input: String, _ reason: String) {
        guard case .failure(let refusal) = DomainName.normalized(input) else {
            Issue.record("\(input) accepted")
            return
        }
        #expect(refusal.reason.contains(reason), "\(input): \(refusal.reason)")
    }
}
