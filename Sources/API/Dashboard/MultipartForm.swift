import Foundation

/// A `multipart/form-data` body (RFC 7578), as a browser sends a form with a file: its text fields,
/// and its files' bytes by field name.
enum MultipartForm {
    struct Malformed: Error {}

    /// The boundary of a `multipart/form-data` Content-Type, or nil for another type.
    static func boundary(of contentType: String?) -> String? {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data") else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "boundary" {
                let value =
                    pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"") && pair[1].count >= 2 ? String(pair[1].dropFirst().dropLast()) : pair[1]
                return (1...70).contains(value.utf8.count) ? value : nil
            }
        }
        return nil
    }

    static func parse(_ body: [UInt8], boundary: String) throws(Malformed) -> (fields: [(name: String, value: String)], files: [String: [UInt8]]) {
        let delimiter = Array("--\(boundary)".utf8)
        var fields: [(name: String, value: String)] = []
        var files: [String: [UInt8]] = [:]
        guard var start = firstIndex(of: delimiter, in: body, from: 0) else { throw Malformed() }
        start += delimiter.count
        while true {
            // After a delimiter: "--" ends the body, CRLF starts a part.
            if body[start...].starts(with: [45, 45]) { break }
            guard body[start...].starts(with: [13, 10]) else { throw Malformed() }
            let headersStart = start + 2
            guard let headersEnd = firstIndex(of: [13, 10, 13, 10], in: body, from: headersStart) else { throw Malformed() }
            let headers = String(decoding: body[headersStart..<headersEnd], as: UTF8.self)
            let contentStart = headersEnd + 4
            guard let next = firstIndex(of: [13, 10] + delimiter, in: body, from: contentStart) else { throw Malformed() }
            let content = Array(body[contentStart..<next])
            var name: String?
            var isFile = false
            for line in headers.split(separator: "\r\n") where line.lowercased().hasPrefix("content-disposition:") {
                for parameter in line.split(separator: ";").dropFirst() {
                    let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                    guard pair.count == 2 else { continue }
                    let value =
                        pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"") && pair[1].count >= 2 ? String(pair[1].dropFirst().dropLast()) : pair[1]
                    if pair[0].lowercased() == "name" { name = value }
                    if pair[0].lowercased() == "filename" { isFile = true }
                }
            }
            guard let name else { throw Malformed() }
            if isFile { files[name] = content } else { fields.append((name, String(decoding: content, as: UTF8.self))) }
            start = next + 2 + delimiter.count
            guard start <= body.count else { throw Malformed() }
        }
        return (fields, files)
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        var index = start
        let first = needle[0]
        while index <= haystack.count - needle.count {
            if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
