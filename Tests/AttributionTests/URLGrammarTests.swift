import Testing

@testable import Attribution

@Suite struct URLGrammarTests {
    @Test(arguments: [
        "https://apps.apple.com/app/id123", "http://shop.example.com", "https://play.google.com/store/apps/details?id=com.x&hl=fr",
        "https://[2001:db8::1]:8443/p", "https://user@host.example/", "https://münchen.example/straße", "https://a.example/?x={clickid}|y",
        "HTTPS://EXAMPLE.COM/", "https://host.example:443/#frag",
    ])
    func acceptsRealURLs(_ url: String) {
        #expect(URLGrammar.httpURLProblem(url) == nil)
    }

    @Test(arguments: [
        "https://example.com/\r\nSet-Cookie: a", "https://example.com/\r", "https://example.com/\n", "https://e.com/\u{0}",
        "https://e.com/\t", "https://e.com/\u{7F}", "https://e.com/\u{85}", "https://e.com/\u{9F}", "https://e.com/\u{2028}",
        "https://e.com/\u{2029}", "https://e.com/a b", "https://e.com/\"", "https://e.com/<x>", "https://good\\@evil.com/",
        "javascript:alert(1)", "ftp://e.com/", "https:/e.com", "https://", "https:///p", "https://:80/", "https://e.com:65536/",
        "https://e.com:8a/", "https://[::1/", "mailto:a@b.c", "",
    ])
    func refusesEverythingElse(_ url: String) {
        #expect(URLGrammar.httpURLProblem(url) != nil, "\(url.debugDescription)")
    }

    @Test func schemesAndPathsHaveTheirOwnGrammar() {
        #expect(URLGrammar.isScheme("my-app+v2.x"))
        for bad in ["", "1app", "App", "my app", "shop\r\n", "shop\u{0}", "shöp", String(repeating: "a", count: 65)] {
            #expect(!URLGrammar.isScheme(bad), "\(bad.debugDescription)")
        }
        #expect(URLGrammar.deepLinkPathProblem("/produit/café?id=4%202&x={y}#top") == nil)
        for bad in ["/a\r\nb", "/a\u{2028}", "/a b", "/a\u{0}", String(repeating: "a", count: 2049)] {
            #expect(URLGrammar.deepLinkPathProblem(bad) != nil, "\(bad.debugDescription)")
        }
    }

    @Test func reservedWordsAreRefusedAsCodesWhateverTheirCase() {
        for word in ["api", "API", "Health", "admin", "metrics", "v1", "dashboard"] { #expect(ShortCode.isReserved(word)) }
        for word in ["apis", "healthy", "promo"] { #expect(!ShortCode.isReserved(word)) }
    }
}
