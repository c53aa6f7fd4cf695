/// Turns a response into the bytes of its HTTP/1.1 message (RFC 9112 §4, §6).
enum ResponseSerializer {
    private static let crlf: [UInt8] = [0x0D, 0x0A]
    private static let contentLengthPrefix = Array("Content-Length: ".utf8)
    private static let connectionClose = Array("Connection: close\r\n".utf8)
    private static let connectionKeepAlive = Array("Connection: keep-alive\r\n".utf8)
    static let continueResponse = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// Why a response's header section cannot be sent as it is, or nil: a field name that is not a
    /// token, or a value with CR, LF, NUL or another control (RFC 9110 §5.1, §5.5). A value with CRLF
    /// would end the field early and let its remainder become headers or a second response
    /// (response splitting), so such a response is never written.
    static func headerProblem(_ headers: HTTPHeaders) -> String? {
        for field in headers.fields {
            if field.name.isEmpty || !field.name.utf8.allSatisfy({ ByteClass.token[Int($0)] }) {
                return "header name \(field.name.debugDescription) is not a token"
            }
            if !field.value.utf8.allSatisfy({ ByteClass.fieldValue[Int($0)] }) {
                return "header \(field.name) has a control character (CR, LF, NUL or another) in its value"
            }
        }
        return nil
    }

    /// What is written in place of a response whose header section is refused by `headerProblem`.
    static let refusedResponse = ErrorBody.response(status: .internalServerError, code: "internal_error",
                                                    message: "the server could not produce a valid response")

    /// - Parameters:
    ///   - omitBody: true for a response to HEAD: headers as for GET, no content (RFC 9110 §9.3.2).
    ///   - close: the connection closes after this response, so say so (RFC 9112 §9.6).
    ///   - keepAliveHTTP10: an HTTP/1.0 client that asked for keep-alive is told it got it.
    static func serialize(_ response: HTTPResponse, dateLine: [UInt8], omitBody: Bool, close: Bool, keepAliveHTTP10: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(160 + response.headers.count * 40 + (omitBody ? 0 : response.body.count))
        bytes.append(contentsOf: response.status.statusLine)
        bytes.append(contentsOf: dateLine)
        for field in response.headers.fields {
            // Framing headers are ours to set; a handler's copy would contradict them.
            if field.name.equalsIgnoringASCIICase("Content-Length") || field.name.equalsIgnoringASCIICase("Connection")
                || field.name.equalsIgnoringASCIICase("Transfer-Encoding") { continue }
            bytes.append(contentsOf: field.name.utf8)
            bytes.append(0x3A)
            bytes.append(0x20)
            bytes.append(contentsOf: field.value.utf8)
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
