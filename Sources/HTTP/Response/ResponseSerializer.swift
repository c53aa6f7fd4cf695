/// Turns a response into the bytes of its HTTP/1.1 message (RFC 9112 §4, §6).
enum ResponseSerializer {
    private static let crlf: [UInt8] = [0x0D, 0x0A]
    private static let contentLengthPrefix = Array("Content-Length: ".utf8)
    private static let connectionClose = Array("Connection: close\r\n".utf8)
    private static let connectionKeepAlive = Array("Connection: keep-alive\r\n".utf8)
    static let continueResponse = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// Why a response's header section cannot be sent as it is, or nil: a field name with a control
    /// character, space or colon, or a value with CR, LF, NUL or another control (RFC 9110 §5.1, §5.5). A value with CRLF
    /// would end the field early and let its remainder become headers or a second response
    /// (response splitting), so such a response is never written.
    static func headerProblem(_ headers: HTTPHeaders) -> String? {
        for field in headers.fields {
            if !isToken(Array(field.name.utf8)[...]) { return "header name \(field.name.debugDescription) is not a valid field name" }
            if !isFieldValue(Array(field.value.utf8)[...]) {
                return "header \(field.name) has a control character (CR, LF, NUL or another) in its value"
            }
        }
        return nil
    }

    // Both run on every response, over the bytes `serialize` has just appended, eight bytes at a
    // time (reading the Strings again cost ~700 instructions a response, a byte-by-byte check ~550;
    // this ~100, callgrind on 20,000 /health requests).

    /// A header name with no control character (HTAB included), DEL, space or colon: nothing
    /// that could end the name or the field early.
    private static func isToken(_ name: ArraySlice<UInt8>) -> Bool { !name.isEmpty && isClean(name, name: true) }

    /// field-vchar / SP / HTAB / obs-text: every byte but the controls other than HTAB, and DEL.
    private static func isFieldValue(_ value: ArraySlice<UInt8>) -> Bool { isClean(value, name: false) }

    private static func isClean(_ slice: ArraySlice<UInt8>, name: Bool) -> Bool {
        slice.withUnsafeBufferPointer { bytes in
            func allowed(_ byte: UInt8) -> Bool {
                name ? byte > 0x20 && byte != 0x7F && byte != UInt8(ascii: ":") : (byte >= 0x20 || byte == 0x09) && byte != 0x7F
            }
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            /// Whether some byte of `word` is zero (the classic test on 64 bits).
            func hasZero(_ word: UInt64) -> Bool { (word &- ones) & ~word & highs != 0 }
            let lowest: UInt64 = name ? 0x21 : 0x20
            var index = 0
            // A word that might hold a refused byte is looked at byte by byte (HTAB is allowed in values).
            while index + 8 <= bytes.count {
                let word = UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self)
                let below = (word &- ones &* lowest) & ~word & highs != 0
                if below || hasZero(word ^ (ones &* 0x7F)) || (name && hasZero(word ^ (ones &* 0x3A))) {
                    for byte in bytes[index..<(index + 8)] where !allowed(byte) { return false }
                }
                index += 8
            }
            for byte in bytes[index...] where !allowed(byte) { return false }
            return true
        }
    }

    /// What is written in place of a response whose header section is refused by `headerProblem`.
    static let refusedResponse = ErrorBody.response(
        status: .internalServerError, code: "internal_error",
        message: "the server could not produce a valid response")

    /// - Parameters:
    ///   - omitBody: true for a response to HEAD: headers as for GET, no content (RFC 9110 §9.3.2).
    ///   - close: the connection closes after this response, so say so (RFC 9112 §9.6).
    ///   - keepAliveHTTP10: an HTTP/1.0 client that asked for keep-alive is told it got it.
    /// - Returns: nil when a header cannot be sent (`headerProblem` says why).
    static func serialize(_ response: HTTPResponse, dateLine: [UInt8], omitBody: Bool, close: Bool, keepAliveHTTP10: Bool) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(160 + response.headers.count * 40 + (omitBody ? 0 : response.body.count))
        bytes.append(contentsOf: response.status.statusLine)
        bytes.append(contentsOf: dateLine)
        for field in response.headers.fields {
            // Framing headers are ours to set; a handler's copy would contradict them.
            if field.name.equalsIgnoringASCIICase("Content-Length") || field.name.equalsIgnoringASCIICase("Connection")
                || field.name.equalsIgnoringASCIICase("Transfer-Encoding")
            {
                continue
            }
            let nameStart = bytes.count
            bytes.append(contentsOf: field.name.utf8)
            guard isToken(bytes[nameStart...]) else { return nil }
            bytes.append(0x3A)
            bytes.append(0x20)
            let valueStart = bytes.count
            bytes.append(contentsOf: field.value.utf8)
            guard isFieldValue(bytes[valueStart...]) else { return nil }
            bytes.append(contentsOf: crlf)
        }
        // RFC 9110 §8.6: no Content-Length in 1xx or 204 responses; 304 keeps none either.
        if response.status.allowsContent {
            bytes.append(contentsOf: contentLengthPrefix)
            ByteText.appendDecimal(response.body.count, to: &bytes)
            bytes.append(contentsOf: crlf)
        }
        if close {
            bytes.append(contentsOf: connectionClose)
        } else if keepAliveHTTP10 {
            bytes.append(contentsOf: connectionKeepAlive)
        }
        bytes.append(contentsOf: crlf)
        if !omitBody && response.status.allowsContent {
            bytes.append(contentsOf: response.body)
        }
        return bytes
    }
}
