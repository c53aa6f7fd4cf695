/// An incremental HTTP/1.1 request parser (RFC 9112). Bytes are fed in chunks of any size; `next()`
/// returns a request's head as soon as its header section is complete, then the whole request once
/// its body has arrived. It never touches a socket, a clock or a handler.
///
/// It is strict where a lenient reading would let two parties frame the same bytes differently
/// (request smuggling) and reports the exact rule that was broken.
public struct HTTPRequestParser {
    public enum Output {
        /// The header section is complete (for `Expect: 100-continue` and the body timer).
        case head(HTTPRequestHead)
        /// The request is complete, body included.
        case request(HTTPRequest)
    }

    /// Where the parser is within the current request.
    public enum Phase: Equatable {
        /// Between requests: nothing of the next one has arrived.
        case idle
        case head
        case body
    }

    private enum State {
        case requestLine
        case headerFields
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailerFields
        case failed
    }

    private let limits: HTTPServerLimits
    private var buffer: [UInt8] = []
    /// First byte not yet consumed.
    private var start = 0
    /// Where the search for the next LF resumes, so a trickled line is not rescanned.
    private var scanFrom = 0
    private var state: State = .requestLine
    private var head: HTTPRequestHead?
    private var headerBytes = 0
    private var body: [UInt8] = []
    /// Empty lines skipped before a request line (RFC 9112 §2.2 allows a few).
    private var leadingEmptyLines = 0

    public init(limits: HTTPServerLimits = HTTPServerLimits()) {
        self.limits = limits
    }

    public var phase: Phase {
        switch state {
        case .requestLine: return start < buffer.count ? .head : .idle
        case .headerFields: return .head
        case .fixedBody, .chunkSize, .chunkData, .chunkDataEnd, .trailerFields: return .body
        case .failed: return .idle
        }
    }

    /// Bytes received but not yet consumed by a complete request.
    public var bufferedByteCount: Int { buffer.count - start }

    /// Request bytes this parser holds in memory: input not yet consumed and the body so far.
    public var heldByteCount: Int { buffer.count - start + body.count }

    /// Lets go of everything held (the connection answers its last response and closes).
    public mutating func discardHeldBytes() {
        buffer = []
        start = 0
        scanFrom = 0
        body = []
        state = .failed
    }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compactIfUseful()
        buffer.append(contentsOf: bytes)
    }

    public mutating func append(_ bytes: some Sequence<UInt8>) {
        compactIfUseful()
        buffer.append(contentsOf: bytes)
    }

    /// The next head or request that the buffered bytes complete, or nil when more bytes are needed.
    /// After an error the parser stays failed: the connection must be closed (RFC 9112 §9.3 — framing
    /// is lost, so nothing after the bad bytes can be trusted).
    public mutating func next() throws(HTTPParseError) -> Output? {
        do {
            return try step()
        } catch {
            state = .failed
            throw error
        }
    }

    private mutating func step() throws(HTTPParseError) -> Output? {
        while true {
            switch state {
            case .failed:
                return nil

            case .requestLine:
                guard let line = try nextLine(limit: limits.maxRequestTargetBytes + 64, tooLong: .targetTooLong) else { return nil }
                if line.isEmpty {
                    // RFC 9112 §2.2: ignore at least one empty line before the request-line.
                    leadingEmptyLines += 1
                    guard leadingEmptyLines <= 4 else { throw .bad("empty lines where a request line was expected") }
                    continue
                }
                headerBytes = line.count + 2
                head = try parseRequestLine(line)
                state = .headerFields

            case .headerFields:
                guard let line = try nextLine(limit: limits.maxHeaderBytes - headerBytes, tooLong: .headersTooLarge) else { return nil }
                headerBytes += line.count + 2
                guard headerBytes <= limits.maxHeaderBytes else {
                    throw HTTPParseError(.headersTooLarge, "header section exceeds \(limits.maxHeaderBytes) bytes")
                }
                if !line.isEmpty {
                    let field = try parseField(line)
                    guard head!.headers.count < limits.maxHeaderFields else {
                        throw HTTPParseError(.headersTooLarge, "more than \(limits.maxHeaderFields) header fields")
                    }
                    head!.headers.add(field.name, field.value)
                    continue
                }
                try frameBody()
                return .head(head!)

            case .fixedBody(let remaining):
                let left = consumeBody(remaining)
                if left > 0 {
                    state = .fixedBody(remaining: left)
                    return nil
                }
                return .request(finishRequest())

            case .chunkSize:
                guard let line = try nextLine(limit: limits.maxChunkLineBytes, tooLong: .badRequest) else { return nil }
                let size = try parseChunkSize(line)
                if size == 0 {
                    state = .trailerFields
                } else {
                    guard size <= limits.maxBodyBytes - body.count else {
                        throw HTTPParseError(.contentTooLarge, "request body exceeds \(limits.maxBodyBytes) bytes")
                    }
                    state = .chunkData(remaining: size)
                }

            case .chunkData(let remaining):
                let left = consumeBody(remaining)
                if left > 0 {
                    state = .chunkData(remaining: left)
                    return nil
                }
                state = .chunkDataEnd

            case .chunkDataEnd:
                // RFC 9112 §7.1: chunk-data is followed by exactly CRLF.
                guard buffer.count - start >= 2 else {
                    if buffer.count - start == 1, buffer[start] != 0x0D { throw .bad("chunk data is longer than its chunk-size") }
                    return nil
                }
                guard buffer[start] == 0x0D, buffer[start + 1] == 0x0A else {
                    throw .bad("chunk data is longer than its chunk-size (expected CRLF after the chunk)")
                }
                start += 2
                scanFrom = start
                state = .chunkSize

            case .trailerFields:
                // RFC 9112 §7.1.2: trailer fields are read and discarded; they never change framing.
                guard let line = try nextLine(limit: limits.maxHeaderBytes - headerBytes, tooLong: .headersTooLarge) else { return nil }
                headerBytes += line.count + 2
                guard headerBytes <= limits.maxHeaderBytes else {
                    throw HTTPParseError(.headersTooLarge, "header and trailer sections exceed \(limits.maxHeaderBytes) bytes")
                }
                if line.isEmpty { return .request(finishRequest()) }
                _ = try parseField(line)
            }
        }
    }

    /// Moves up to `remaining` buffered bytes into the body; returns how many are still to come.
    private mutating func consumeBody(_ remaining: Int) -> Int {
        let available = min(remaining, buffer.count - start)
        body.append(contentsOf: buffer[start..<(start + available)])
        start += available
        scanFrom = start
        return remaining - available
    }

    // MARK: - Lines

    /// The next CRLF-terminated line without its CRLF, or nil when it has not all arrived.
    private mutating func nextLine(limit: Int, tooLong: HTTPParseError.Kind) throws(HTTPParseError) -> ArraySlice<UInt8>? {
        let searchStart = max(start, scanFrom)
        guard let lf = buffer[searchStart...].firstIndex(of: 0x0A) else {
            scanFrom = buffer.count
            if buffer.count - start > limit { throw lineTooLong(tooLong) }
            return nil
        }
        // RFC 9112 §2.2: a bare LF is not accepted as a line terminator here, and a bare CR
        // inside a line is rejected — both are classic smuggling vectors.
        guard lf > start, buffer[lf - 1] == 0x0D else { throw .bad("line ends in a bare LF; CRLF is required") }
        let line = buffer[start..<(lf - 1)]
        if line.count > limit { throw lineTooLong(tooLong) }
        if line.contains(0x0D) { throw .bad("bare CR inside a line") }
        start = lf + 1
        scanFrom = start
        return line
    }

    private func lineTooLong(_ kind: HTTPParseError.Kind) -> HTTPParseError {
        switch kind {
        case .targetTooLong: HTTPParseError(.targetTooLong, "request-target exceeds \(limits.maxRequestTargetBytes) bytes")
        case .headersTooLarge: HTTPParseError(.headersTooLarge, "header section exceeds \(limits.maxHeaderBytes) bytes")
        default: .bad("chunk-size line exceeds \(limits.maxChunkLineBytes) bytes")
        }
    }

    // MARK: - Request line (RFC 9112 §3)

    private func parseRequestLine(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> HTTPRequestHead {
        // request-line = method SP request-target SP HTTP-version, single spaces only.
        guard let firstSpace = line.firstIndex(of: 0x20) else { throw .bad("malformed request line") }
        let methodBytes = line[line.startIndex..<firstSpace]
        let token = ByteClass.token  // once: a static's every access checks its initialisation
        guard !methodBytes.isEmpty, methodBytes.allSatisfy({ token[Int($0)] }) else {
            throw .bad("invalid method: the method must be a token (RFC 9110 §9)")
        }
        let afterMethod = line[(firstSpace + 1)...]
        guard let secondSpace = afterMethod.firstIndex(of: 0x20) else { throw .bad("malformed request line") }
        let targetBytes = afterMethod[afterMethod.startIndex..<secondSpace]
        let versionBytes = afterMethod[(secondSpace + 1)...]

        guard targetBytes.count <= limits.maxRequestTargetBytes else {
            throw HTTPParseError(.targetTooLong, "request-target exceeds \(limits.maxRequestTargetBytes) bytes")
        }
        let method = methodBytes.withUnsafeBufferPointer { HTTPMethod.intern($0) }
        try validateTarget(targetBytes, method: method)
        let version = try parseVersion(versionBytes)
        let target = String(decoding: targetBytes, as: UTF8.self)
        return HTTPRequestHead(method: method, target: target, version: version, headers: HTTPHeaders())
    }

    private func validateTarget(_ target: ArraySlice<UInt8>, method: HTTPMethod) throws(HTTPParseError) {
        guard let first = target.first else { throw .bad("empty request-target") }
        let allowed = ByteClass.target
        for byte in target where !allowed[Int(byte)] {
            throw .bad(
                byte == UInt8(ascii: "#")
                    ? "request-target must not contain a fragment ('#')"
                    : "request-target contains a character that must be percent-encoded")
        }
        var index = target.startIndex
        while let percent = target[index...].firstIndex(of: UInt8(ascii: "%")) {
            guard percent + 2 < target.endIndex,
                ByteClass.isHexDigit(target[percent + 1]), ByteClass.isHexDigit(target[percent + 2])
            else {
                throw .bad("request-target has an invalid percent-encoding")
            }
            index = percent + 3
        }
        // RFC 9112 §3.2: origin-form, absolute-form, or asterisk-form for OPTIONS.
        // authority-form belongs to CONNECT, which a origin server does not serve.
        if first == UInt8(ascii: "/") { return }
        if target.count == 1, first == UInt8(ascii: "*") {
            guard method == .options else { throw .bad("asterisk-form request-target is only for OPTIONS") }
            return
        }
        let lowered = String(decoding: target.prefix(8), as: UTF8.self).lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") { return }
        throw .bad("request-target must be a path starting with '/' or an absolute http(s) URI")
    }

    private func parseVersion(_ bytes: ArraySlice<UInt8>) throws(HTTPParseError) -> HTTPVersion {
        // HTTP-version = "HTTP/" DIGIT "." DIGIT (RFC 9112 §2.3), case-sensitive.
        let base = bytes.startIndex
        guard bytes.count == 8, bytes[base] == UInt8(ascii: "H"), bytes[base + 1] == UInt8(ascii: "T"),
            bytes[base + 2] == UInt8(ascii: "T"), bytes[base + 3] == UInt8(ascii: "P"), bytes[base + 4] == UInt8(ascii: "/"),
            (0x30...0x39).contains(bytes[base + 5]), bytes[base + 6] == UInt8(ascii: "."), (0x30...0x39).contains(bytes[base + 7])
        else {
            throw .bad("malformed HTTP version")
        }
        switch (bytes[base + 5], bytes[base + 7]) {
        case (0x31, 0x31): return .http1_1
        case (0x31, 0x30): return .http1_0
        default: throw HTTPParseError(.unsupportedVersion, "only HTTP/1.0 and HTTP/1.1 are supported")
        }
    }

    // MARK: - Header fields (RFC 9112 §5)

    private func parseField(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> (name: String, value: String) {
        // RFC 9112 §5.2: obs-fold (a line starting with whitespace) is rejected with 400.
        if line.first == 0x20 || line.first == 0x09 { throw .bad("obsolete line folding (obs-fold) is not accepted") }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { throw .bad("header field without ':'") }
        let nameBytes = line[line.startIndex..<colon]
        // RFC 9112 §5.1: no whitespace between field name and colon; such a request is rejected.
        let token = ByteClass.token
        guard !nameBytes.isEmpty, nameBytes.allSatisfy({ token[Int($0)] }) else {
            throw .bad("invalid header field name '\(String(decoding: nameBytes.prefix(64), as: UTF8.self))'")
        }
        var valueBytes = line[(colon + 1)...]
        while let first = valueBytes.first, first == 0x20 || first == 0x09 { valueBytes = valueBytes.dropFirst() }
        while let last = valueBytes.last, last == 0x20 || last == 0x09 { valueBytes = valueBytes.dropLast() }
        let fieldValue = ByteClass.fieldValue
        guard valueBytes.allSatisfy({ fieldValue[Int($0)] }) else {
            throw .bad("header field '\(String(decoding: nameBytes, as: UTF8.self))' has a control character in its value")
        }
        return (String(decoding: nameBytes, as: UTF8.self), String(decoding: valueBytes, as: UTF8.self))
    }

    // MARK: - Message body length (RFC 9112 §6)

    private mutating func frameBody() throws(HTTPParseError) {
        let version = head!.version
        // One pass over the fields for the three that frame the request.
        var hosts: [String] = []
        var transferEncodings: [String] = []
        var contentLengths: [String] = []
        for field in head!.headers.fields {
            switch field.name.utf8.count {
            case 4 where field.name.equalsIgnoringASCIICase("Host"): hosts.append(field.value)
            case 14 where field.name.equalsIgnoringASCIICase("Content-Length"): contentLengths.append(field.value)
            case 17 where field.name.equalsIgnoringASCIICase("Transfer-Encoding"): transferEncodings.append(field.value)
            default: continue
            }
        }

        // RFC 9112 §3.2: exactly one Host in HTTP/1.1; never more than one.
        if version == .http1_1, hosts.isEmpty { throw .bad("missing Host header (required in HTTP/1.1)") }
        if hosts.count > 1 { throw .bad("more than one Host header") }
        // Bytes, not Characters: comparing Characters walked grapheme clusters (7,000 instructions a request).
        // RFC 9112 §3.2: a Host that is not a valid authority is answered 400. An empty one is allowed
        // (a target without authority); `a..b`, `a:`, `a:123456` are not, nor a name with an
        // unrouteable character: a tenant's brand domain must not be reachable under another spelling.
        if let host = hosts.first, !host.isEmpty, !RequestAuthority.isValid(host) {
            throw .bad("invalid Host header")
        }

        if !transferEncodings.isEmpty {
            // RFC 9112 §6.1: Transfer-Encoding in an HTTP/1.0 message means the framing is faulty.
            if version == .http1_0 { throw .bad("Transfer-Encoding is not allowed in an HTTP/1.0 request") }
            // RFC 9112 §6.1/§6.3: both present is a smuggling attempt; reject rather than guess.
            if !contentLengths.isEmpty { throw .bad("both Content-Length and Transfer-Encoding are present") }
            let codings = transferEncodings.flatMap { $0.split(separator: ",") }.map { $0.trimmingOWS().lowercased() }
            // RFC 9112 §6.3 (4): if chunked is not the final coding the length cannot be determined → 400.
            guard codings.last == "chunked" else { throw .bad("Transfer-Encoding must end with 'chunked'") }
            // RFC 9112 §7: chunked must not be applied more than once.
            guard codings.filter({ $0 == "chunked" }).count == 1 else { throw .bad("'chunked' is applied more than once") }
            // RFC 9112 §6.1: a coding we do not implement → 501.
            if codings.count > 1 {
                throw HTTPParseError(.unsupportedTransferCoding, "unsupported transfer coding '\(codings[0])'; only 'chunked' is accepted")
            }
            state = .chunkSize
            return
        }

        if !contentLengths.isEmpty {
            // Stricter than RFC 9112 §6.3 (5), which tolerates repeated identical values: any
            // repetition or list is rejected, so no two parsers can disagree about it.
            guard contentLengths.count == 1 else { throw .bad("more than one Content-Length header") }
            let text = contentLengths[0]
            guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let length = Int(text) else {
                throw .bad("invalid Content-Length '\(text.prefix(32))'")
            }
            guard length <= limits.maxBodyBytes else {
                throw HTTPParseError(.contentTooLarge, "request body of \(length) bytes exceeds the limit of \(limits.maxBodyBytes)")
            }
            if length > 0 {
                body.reserveCapacity(length)
                state = .fixedBody(remaining: length)
                return
            }
        }
        // RFC 9112 §6.3 (7): a request with neither has no body.
        state = .fixedBody(remaining: 0)
    }

    // MARK: - Chunked (RFC 9112 §7.1)

    private func parseChunkSize(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> Int {
        // chunk-size = 1*HEXDIG, then optional chunk-ext (";" ...), which is ignored.
        var size = 0
        var digits = 0
        var index = line.startIndex
        while index < line.endIndex, let value = PercentDecoding.hexValue(line[index]) {
            digits += 1
            guard digits <= 15 else { throw HTTPParseError(.contentTooLarge, "chunk-size is too large") }
            size = size << 4 | Int(value)
            index += 1
        }
        guard digits > 0 else { throw .bad("malformed chunk-size line") }
        let rest = line[index...]
        if let first = rest.first {
            guard first == UInt8(ascii: ";") || first == 0x20 || first == 0x09,
                rest.allSatisfy({ ByteClass.fieldValue[Int($0)] })
            else {
                throw .bad("malformed chunk-size line")
            }
            let trimmed = rest.drop { $0 == 0x20 || $0 == 0x09 }
            guard trimmed.first == UInt8(ascii: ";") else { throw .bad("malformed chunk extension") }
        }
        return size
    }

    // MARK: - Completion

    private mutating func finishRequest() -> HTTPRequest {
        let finished = head!
        var request = HTTPRequest(
            method: finished.method, target: finished.target, version: finished.version,
            headers: finished.headers, body: body)
        request.remoteAddress = nil
        head = nil
        body = []
        headerBytes = 0
        leadingEmptyLines = 0
        state = .requestLine
        return request
    }

    private mutating func compactIfUseful() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
            scanFrom = 0
        } else if start > 4096, start > buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            scanFrom -= start
            start = 0
        }
    }
}

/// The request line and header fields of a request whose body may still be arriving.
public struct HTTPRequestHead: Sendable {
    public var method: HTTPMethod
    public var target: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders

    /// Whether the client waits for `100 Continue` before sending its body (RFC 9110 §10.1.1).
    public var expectsContinue: Bool {
        headers["Expect"].map { $0.equalsIgnoringASCIICase("100-continue") } ?? false
    }

    /// An `Expect` value other than `100-continue`, which we cannot meet (→ 417).
    public var hasUnmetExpectation: Bool {
        guard let expect = headers["Expect"] else { return false }
        return !expect.equalsIgnoringASCIICase("100-continue")
    }
}
