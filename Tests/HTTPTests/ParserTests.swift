import TestSupport
import Testing

@testable import HTTP

/// Feeds `text` to a fresh parser in one piece and returns the first complete request, or the error.
private func parse(_ text: String, limits: HTTPServerLimits = HTTPServerLimits()) -> Result<HTTPRequest?, HTTPParseError> {
    var parser = HTTPRequestParser(limits: limits)
    parser.append(Array(text.utf8))
    do {
        while let output = try parser.next() {
            if case .request(let request) = output { return .success(request) }
        }
        return .success(nil)
    } catch {
        return .failure(error)
    }
}

@Suite struct ParserTests {
    @Test func parsesRequestLineHeadersAndBody() throws {
        let request = try #require(
            try parse("POST /api/x?a=1&b=two%20words HTTP/1.1\r\nHost: h\r\nX-A:  spaced value \t\r\nContent-Length: 5\r\n\r\nhello").get())
        #expect(request.method == .post)
        #expect(request.target == "/api/x?a=1&b=two%20words")
        #expect(request.path == "/api/x")
        #expect(request.queryValue("b") == "two words")
        #expect(request.version == .http1_1)
        #expect(request.headers["x-a"] == "spaced value")
        #expect(request.body == Array("hello".utf8))
    }

    @Test func absoluteFormTargetYieldsItsPath() throws {
        let request = try #require(try parse("GET http://example.com/health?x=1 HTTP/1.1\r\nHost: example.com\r\n\r\n").get())
        #expect(request.path == "/health")
        #expect(HTTPRequest(method: .get, target: "http://example.com").path == "/")
        #expect(HTTPRequest(method: .get, target: "/a/%C3%A9?q=/x").path == "/a/%C3%A9")
    }

    @Test func pathsSplitIntoSegmentsByteForByte() {
        #expect(Router.segments(of: "/") == [])
        #expect(Router.segments(of: "") == [])
        #expect(Router.segments(of: "/api/client/init") == ["api", "client", "init"])
        #expect(Router.segments(of: "/health/") == ["health", ""])
        #expect(Router.segments(of: "//x") == ["", "x"])
        #expect(Router.segments(of: "/é/ü") == ["é", "ü"])
        #expect(Router.segments(of: "no-slash/b") == ["no-slash", "b"])
    }

    @Test func byteAtATimeGivesTheSameRequest() throws {
        let text =
            "POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\nTrailer: x\r\n\r\n"
        var parser = HTTPRequestParser()
        var requests: [HTTPRequest] = []
        for byte in text.utf8 {
            parser.append([byte])
            while let output = try parser.next() {
                if case .request(let request) = output { requests.append(request) }
            }
        }
        #expect(requests.count == 1)
        #expect(requests.first?.body == Array("abc0123456789abcdef".utf8))
    }

    @Test func chunkedBodySplitAtEveryBoundary() throws {
        let text = Array(
            "POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n1;a=b\r\n \r\nA\r\n0123456789\r\n0\r\n\r\n".utf8)
        for split in 1..<text.count {
            var parser = HTTPRequestParser()
            var body: [UInt8]?
            for part in [text[0..<split], text[split...]] {
                parser.append(part)
                while let output = try parser.next() {
                    if case .request(let request) = output { body = request.body }
                }
            }
            #expect(body == Array("hello 0123456789".utf8), "split at \(split)")
        }
    }

    @Test func headComesBeforeTheBody() throws {
        var parser = HTTPRequestParser()
        parser.append(Array("POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n".utf8))
        guard case .head(let head)? = try parser.next() else {
            Issue.record("expected head")
            return
        }
        #expect(head.expectsContinue)
        #expect(try parser.next() == nil)
        #expect(parser.phase == .body)
        parser.append(Array("abc".utf8))
        guard case .request(let request)? = try parser.next() else {
            Issue.record("expected request")
            return
        }
        #expect(request.body == Array("abc".utf8))
        #expect(parser.phase == .idle)
    }

    @Test func pipelinedRequestsComeOutInOrder() throws {
        var parser = HTTPRequestParser()
        parser.append(Array((get("/a") + get("/b") + "POST /c HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\nz").utf8))
        var paths: [String] = []
        while let output = try parser.next() {
            if case .request(let request) = output { paths.append(String(request.path)) }
        }
        #expect(paths == ["/a", "/b", "/c"])
    }

    @Test func leadingEmptyLinesAreIgnored() throws {
        let request = try parse("\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n").get()
        #expect(request?.path == "/")
    }

    @Test func http10NeedsNoHost() throws {
        let request = try #require(try parse("GET / HTTP/1.0\r\n\r\n").get())
        #expect(request.version == .http1_0)
        #expect(!request.wantsKeepAlive)
    }

    struct FramingCase: CustomTestStringConvertible, Sendable {
        let name: String
        let request: String
        let status: Int
        var testDescription: String { name }
    }

    /// Every framing rule of RFC 9112 the server enforces, one row each (after SwiftNIO's
    /// HTTPDecoderLengthTest). Each must be rejected with the given status.
    static let framingCases: [FramingCase] = [
        .init(
            name: "Content-Length with Transfer-Encoding (§6.1)",
            request: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", status: 400),
        .init(
            name: "Transfer-Encoding before Content-Length (§6.1)",
            request: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", status: 400),
        .init(
            name: "duplicate Content-Length, same value (§6.3)",
            request: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc", status: 400),
        .init(
            name: "Content-Length list (§6.3)",
            request: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3, 3\r\n\r\nabc", status: 400),
        .init(name: "negative Content-Length", request: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", status: 400),
        .init(name: "signed Content-Length", request: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +3\r\n\r\nabc", status: 400),
        .init(name: "non-numeric Content-Length", request: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3a\r\n\r\n", status: 400),
        .init(name: "empty Content-Length", request: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: \r\n\r\n", status: 400),
        .init(
            name: "huge Content-Length overflows", request: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999999\r\n\r\n",
            status: 400),
        .init(name: "chunked not final (§6.3)", request: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, identity\r\n\r\n", status: 400),
        .init(
            name: "chunked twice (§7)", request: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
            status: 400),
        .init(name: "unknown coding only (§6.3)", request: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", status: 400),
        .init(
            name: "unsupported coding before chunked (§6.1 → 501)", request: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
            status: 501),
        .init(name: "Transfer-Encoding in HTTP/1.0 (§6.1)", request: "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", status: 400),
        .init(name: "missing Host in HTTP/1.1 (§3.2)", request: "GET / HTTP/1.1\r\n\r\n", status: 400),
        .init(name: "duplicate Host (§3.2)", request: "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", status: 400),
        .init(name: "invalid Host", request: "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", status: 400),
        .init(name: "obs-fold (§5.2)", request: "GET / HTTP/1.1\r\nHost: h\r\nX-A: one\r\n two\r\n\r\n", status: 400),
        .init(name: "space before colon (§5.1)", request: "GET / HTTP/1.1\r\nHost : h\r\n\r\n", status: 400),
        .init(name: "bare LF ends the request line (§2.2)", request: "GET / HTTP/1.1\nHost: h\r\n\r\n", status: 400),
        .init(name: "bare LF ends a header line (§2.2)", request: "GET / HTTP/1.1\r\nHost: h\n\r\n", status: 400),
        .init(name: "bare CR inside a header (§2.2)", request: "GET / HTTP/1.1\r\nHost: h\r\nX-A: a\rb\r\n\r\n", status: 400),
        .init(name: "NUL in a header value (§5.5)", request: "GET / HTTP/1.1\r\nHost: h\r\nX-A: a\u{0}b\r\n\r\n", status: 400),
        .init(name: "header without colon", request: "GET / HTTP/1.1\r\nHost: h\r\nnocolon\r\n\r\n", status: 400),
        .init(name: "invalid method token (§9)", request: "G@T / HTTP/1.1\r\nHost: h\r\n\r\n", status: 400),
        .init(name: "empty method", request: " / HTTP/1.1\r\nHost: h\r\n\r\n", status: 400),
        .init(name: "double space in request line (§3)", request: "GET  / HTTP/1.1\r\nHost: h\r\n\r\n", status: 400),
        .init(name: "target with a fragment (§3.2)", request: "GET /a#b HTTP/1.1\r\nHost: h\r\n\r\n", status: 400),
        .init(name: "target with a bad percent-encoding", request: "GET /a%zz HTTP/1.1\r\nHost: h\r\n\r\n", status: 400),
        .init(name: "target with a control character", request: "GET /a\u{1}b HTTP/1.1\r\nHost: h\r\n\r\n", status: 400),
        .init(name: "target not a path", request: "GET abc HTTP/1.1\r\nHost: h\r\n\r\n", status: 400),
        .init(name: "asterisk target with GET", request: "GET * HTTP/1.1\r\nHost: h\r\n\r\n", status: 400),
        .init(name: "malformed version", request: "GET / HTTP/1.x\r\nHost: h\r\n\r\n", status: 400),
        .init(name: "lowercase version", request: "GET / http/1.1\r\nHost: h\r\n\r\n", status: 400),
        .init(name: "HTTP/2.0 (§2.3 → 505)", request: "GET / HTTP/2.0\r\nHost: h\r\n\r\n", status: 505),
        .init(name: "malformed chunk size (§7.1)", request: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", status: 400),
        .init(
            name: "chunk size with 0x prefix", request: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0x3\r\nabc\r\n0\r\n\r\n",
            status: 400),
        .init(
            name: "chunk longer than its size (§7.1)",
            request: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n", status: 400),
        .init(
            name: "chunk size line with bare LF", request: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\nabc\r\n0\r\n\r\n",
            status: 400),
        .init(
            name: "chunk extension garbage", request: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3 x\r\nabc\r\n0\r\n\r\n",
            status: 400),
    ]

    @Test(arguments: framingCases)
    func framingRuleIsEnforced(_ row: FramingCase) {
        switch parse(row.request) {
        case .failure(let error): #expect(error.status.code == row.status)
        case .success(let request): Issue.record("accepted: \(String(describing: request?.target))")
        }
    }

    @Test func limitsGiveTheirStatuses() {
        var limits = HTTPServerLimits()
        limits.maxBodyBytes = 100
        let longTarget = "/" + String(repeating: "a", count: limits.maxRequestTargetBytes + 1)
        #expect(parse("GET \(longTarget) HTTP/1.1\r\nHost: h\r\n\r\n", limits: limits).failureStatus == 414)
        let bigHeader = "X-Big: " + String(repeating: "b", count: limits.maxHeaderBytes) + "\r\n"
        #expect(parse("GET / HTTP/1.1\r\nHost: h\r\n\(bigHeader)\r\n", limits: limits).failureStatus == 431)
        let manyHeaders = (0...limits.maxHeaderFields).map { "X-\($0): v\r\n" }.joined()
        #expect(parse("GET / HTTP/1.1\r\nHost: h\r\n\(manyHeaders)\r\n", limits: limits).failureStatus == 431)
        #expect(parse("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 101\r\n\r\n", limits: limits).failureStatus == 413)
        #expect(
            parse("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\n\r\n" + String(repeating: "x", count: 100), limits: limits).failureStatus
                == nil)
        let chunks = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n\(String(repeating: "x", count: 64))\r\n40\r\n"
        #expect(parse(chunks, limits: limits).failureStatus == 413)
    }

    @Test func partialTargetBeyondTheLimitFailsBeforeItsEnd() {
        var parser = HTTPRequestParser()
        parser.append(Array(("GET /" + String(repeating: "a", count: 9000)).utf8))
        #expect(throws: HTTPParseError.self) { try parser.next() }
    }
}

extension Result where Failure == HTTPParseError {
    var failureStatus: Int? {
        if case .failure(let error) = self { return error.status.code }
        return nil
    }
}
