import Attribution
import Cryptography
import Foundation
import Synchronization

/// An S3-compatible bucket: AWS itself (virtual-hosted `https://bucket.s3.region.amazonaws.com`)
/// or the endpoint given (path-style `endpoint/bucket/key`: MinIO, R2, Backblaze, GCS's
/// interoperability). One PUT for a file up to `partSize`, a multipart upload above it; every
/// request signed with Signature V4 at the server's real time.
struct S3Destination: ExportDestination {
    let bucket: String
    let prefix: String
    let endpoint: String?
    let signature: S3Signature
    let transport: any OutboundTransport
    let clock: any Clock
    /// 16 MiB: S3's parts are 5 MiB at least (but the last), 10,000 at most.
    var partSize = 16 << 20

    func location(of key: String) -> String { "s3://\(bucket)/\(objectKey(key))" }

    func put(path: String, bytes: Int, sha256: String, key: String, contentType: String, uploads: ExportUploads) throws {
        let object = objectKey(key)
        guard bytes > partSize else {
            let body = try Self.read(path, offset: 0, count: bytes)
            _ = try send("PUT", object, body: body, sha256: sha256, headers: [("content-type", contentType)])
            return
        }
        let started = try send("POST", object, query: [("uploads", "")], body: [], headers: [("content-type", contentType)])
        guard let uploadID = Self.element("UploadId", in: started.bodyPrefix) else {
            throw ExportDestinationError("S3 started no multipart upload for \(object): \(started.shownBody)")
        }
        try uploads.started(key, uploadID)
        var tags: [String] = []
        var offset = 0
        while offset < bytes {
            let body = try Self.read(path, offset: offset, count: min(partSize, bytes - offset))
            let answer = try send(
                "PUT", object, query: [("partNumber", String(tags.count + 1)), ("uploadId", uploadID)], body: body,
                sha256: AESGCM.hex(Secrets.sha256(body)),
                // Named, or the HTTP client would call a body form data (moto's server then parses it as a form).
                headers: [("content-type", "application/octet-stream")])
            guard let tag = answer.headers.first(where: { $0.key.lowercased() == "etag" })?.value else {
                throw ExportDestinationError("S3 gave no ETag for part \(tags.count + 1) of \(object)")
            }
            tags.append(tag)
            offset += body.count
        }
        let parts = tags.enumerated().map { "<Part><PartNumber>\($0.offset + 1)</PartNumber><ETag>\(Self.escaped($0.element))</ETag></Part>" }
        let complete = Array("<CompleteMultipartUpload>\(parts.joined())</CompleteMultipartUpload>".utf8)
        let answer = try send(
            "POST", object, query: [("uploadId", uploadID)], body: complete, headers: [("content-type", "application/xml")])
        // S3 may answer 200 with an error document when completing fails late.
        if answer.bodyPrefix.contains("<Error>") { throw ExportDestinationError("S3 refused to complete \(object): \(answer.shownBody)") }
        try uploads.finished(key)
    }

    func abort(key: String, uploadID: String) throws {
        do {
            _ = try send("DELETE", objectKey(key), query: [("uploadId", uploadID)], body: [])
        } catch let error as S3Refusal where error.status == 404 {
            // Already gone (completed, aborted, or expired by a lifecycle rule).
        }
    }

    private func objectKey(_ key: String) -> String { prefix.isEmpty ? key : prefix + "/" + key }

    struct S3Refusal: Error, CustomStringConvertible {
        let status: Int
        let method: String
        let object: String
        let body: String
        var description: String { "S3 answered \(status) to \(method) \(object): \(body)" }
    }

    private func send(
        _ method: String, _ object: String, query: [(String, String)] = [], body: [UInt8], sha256: String? = nil,
        headers extra: [(String, String)] = []
    ) throws -> OutboundResponse {
        let (base, host, path) = address(of: object)
        var headers = extra + [("host", host)]
        headers += signature.sign(
            method: method, path: path, query: query, headers: headers, payloadSHA256: sha256 ?? AESGCM.hex(Secrets.sha256(body)),
            at: clock.now())
        let queryText = query.map {
            S3Signature.encode($0.0, encodingSlash: true) + ($0.1.isEmpty ? "" : "=" + S3Signature.encode($0.1, encodingSlash: true))
        }
        .joined(separator: "&")
        let url = base + path + (queryText.isEmpty ? "" : "?" + queryText)
        let request = OutboundRequest(
            method: method, url: url, headers: headers.filter { $0.0 != "host" }.map { (name: $0.0, value: $0.1) }, body: body,
            keptResponseBytes: 64 * 1024)
        let answer = try Self.wait(for: request, on: transport)
        guard (200..<300).contains(answer.statusCode) else {
            throw S3Refusal(status: answer.statusCode, method: method, object: object, body: answer.shownBody)
        }
        return answer
    }

    /// The URL's scheme and authority, the Host header, and the encoded path of `object`.
    private func address(of object: String) -> (base: String, host: String, path: String) {
        let encoded = S3Signature.encode(object, encodingSlash: false)
        if let endpoint {
            let trimmed = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
            let host = trimmed.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: true).dropFirst().first.map(String.init) ?? trimmed
            return (trimmed, host, "/" + S3Signature.encode(bucket, encodingSlash: true) + "/" + encoded)
        }
        let host = "\(bucket).s3.\(signature.region).amazonaws.com"
        return ("https://" + host, host, "/" + encoded)
    }

    static func wait(for request: OutboundRequest, on transport: any OutboundTransport) throws -> OutboundResponse {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<OutboundResponse, any Error>?>(nil)
        transport.send(request) { answer in
            result.withLock { $0 = answer }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }

    private static func read(_ path: String, offset: Int, count: Int) throws -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw ExportDestinationError("cannot read \(path)") }
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        let data = try handle.read(upToCount: count) ?? Data()
        guard data.count == count else { throw ExportDestinationError("\(path) is shorter than expected") }
        return Array(data)
    }

    static func element(_ name: String, in xml: String) -> String? {
        guard let start = xml.range(of: "<\(name)>"), let end = xml.range(of: "</\(name)>", range: start.upperBound..<xml.endIndex) else {
            return nil
        }
        return String(xml[start.upperBound..<end.lowerBound])
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;")
    }
}
