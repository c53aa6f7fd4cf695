import Testing

@testable import HTTP

struct QueryItemsTests {
    private func items(_ target: String) -> [String] {
        HTTPRequest(method: .get, target: target).queryItems.map { "\($0.name)=\($0.value)" }
    }

    @Test func itemsAreSplitInOrderAndDecoded() {
        #expect(items("/a") == [])
        #expect(items("/a?") == [])
        #expect(items("/a?x=1&y=two+words&z=%C3%A9&empty=&flag") == ["x=1", "y=two words", "z=é", "empty=", "flag="])
        #expect(items("/a?&&x=1&") == ["x=1"])
        #expect(items("/a?eq=a=b") == ["eq=a=b"])  // only the first "=" splits
        #expect(items("http://h.example/a?x=1") == ["x=1"])  // absolute form
        #expect(items("/a?%26=%3D") == ["&=="])  // encoded separators are data: name "&", value "="
        #expect(items("/a?e=%C3%A9%CC%81&x=1") == ["e=é́", "x=1"])  // a combining mark does not hide the "&"
    }

    /// A "%" without two hex digits after it is kept with everything that follows it.
    @Test func brokenEscapesAreKeptWhole() {
        #expect(items("/a?x=%4") == ["x=%4"])
        #expect(items("/a?x=%") == ["x=%"])
        #expect(items("/a?x=%zz1") == ["x=%zz1"])
        #expect(items("/a?x=100%") == ["x=100%"])
    }
}
