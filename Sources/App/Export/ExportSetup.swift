import Attribution
import Foundation
import StoreContracts

/// A project's export as a client sets it (`PUT /admin/v1/projects/{id}/export`), checked.
public struct ExportFields: Sendable {
    public var destination: String
    public var endpoint: String?
    public var region: String?
    public var accessKeyID: String?
    /// Left out: the stored one is kept (a form that shows it masked can be saved again).
    public var secretAccessKey: String?
    public var formats: [String]?
    public var tables: [String]?
    public var enabled: Bool?

    public init(
        destination: String, endpoint: String? = nil, region: String? = nil, accessKeyID: String? = nil, secretAccessKey: String? = nil,
        formats: [String]? = nil, tables: [String]? = nil, enabled: Bool? = nil
    ) {
        self.destination = destination
        self.endpoint = endpoint
        self.region = region
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.formats = formats
        self.tables = tables
        self.enabled = enabled
    }
}

/// Where a destination text points.
enum ExportTarget: Equatable {
    case directory(String)
    case bucket(name: String, prefix: String)

    /// `file:///absolute/path` or `s3://bucket[/prefix]`.
    static func parse(_ text: String) -> ExportTarget? {
        if text.hasPrefix("file://") {
            var path = String(text.dropFirst("file://".count))
            while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
            guard path.hasPrefix("/"), !path.split(separator: "/").contains(".."), !path.contains("\0") else { return nil }
            return .directory(path)
        }
        guard text.hasPrefix("s3://") else { return nil }
        let rest = text.dropFirst("s3://".count)
        let parts = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let bucket = String(parts[0])
        // S3's bucket names: 3 to 63 lowercase letters, digits, dots and hyphens.
        guard (3...63).contains(bucket.count), bucket.allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "." || $0 == "-" }),
            bucket.first?.isLetter == true || bucket.first?.isNumber == true
        else { return nil }
        var prefix = parts.count > 1 ? String(parts[1]) : ""
        while prefix.hasSuffix("/") { prefix.removeLast() }
        guard prefix.utf8.count <= 512, !prefix.split(separator: "/", omittingEmptySubsequences: false).contains("..") else { return nil }
        return .bucket(name: bucket, prefix: prefix)
    }
}

extension ExportSettings {
    /// The stored settings `fields` make, or the problems with them.
    static func make(_ fields: ExportFields, projectID: String, existing: ExportSettings?, at now: Timestamp) throws -> ExportSettings {
        var problems: [ValidationProblem] = []
        let target = ExportTarget.parse(fields.destination)
        if target == nil {
            problems.append(ValidationProblem("destination", "must be s3://bucket/prefix or file:///absolute/path"))
        }
        if let endpoint = fields.endpoint {
            let url = URL(string: endpoint)
            // Scheme and authority only: the requests' paths are the bucket's and the key's, as signed.
            if !(endpoint.hasPrefix("https://") || endpoint.hasPrefix("http://")) || endpoint.utf8.count > 512 || url?.host == nil
                || !(url?.path ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "/")).isEmpty || url?.query != nil
            {
                problems.append(ValidationProblem("endpoint", "must be the http:// or https:// address of an S3-compatible service, with no path"))
            }
        }
        let region = fields.region ?? existing?.region ?? "us-east-1"
        if region.isEmpty || region.utf8.count > 64 || !region.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) {
            problems.append(ValidationProblem("region", "must be a region name such as us-east-1 (auto for R2)"))
        }
        let secret =
            fields.secretAccessKey ?? (fields.accessKeyID == nil || fields.accessKeyID == existing?.accessKeyID ? existing?.secretAccessKey : nil)
        if case .bucket? = target {
            if (fields.accessKeyID ?? "").isEmpty { problems.append(ValidationProblem("access_key_id", "is required for an s3:// destination")) }
            if (secret ?? "").isEmpty { problems.append(ValidationProblem("secret_access_key", "is required for an s3:// destination")) }
        }
        for (key, value) in [("access_key_id", fields.accessKeyID), ("secret_access_key", fields.secretAccessKey)] {
            if let value, value.utf8.count > 256 || value.contains(where: { $0.isNewline || $0.isWhitespace }) {
                problems.append(ValidationProblem(key, "must be at most 256 characters without spaces or line breaks"))
            }
        }
        var formats: [ExportFormat] = []
        for name in fields.formats ?? ExportFormat.allCases.map(\.rawValue) {
            if let format = ExportFormat(rawValue: name) {
                if !formats.contains(format) { formats.append(format) }
            } else {
                problems.append(ValidationProblem("formats", "\(name) is not a format; known: csv, ndjson"))
            }
        }
        if formats.isEmpty && fields.formats != nil { problems.append(ValidationProblem("formats", "must name at least one format")) }
        var tables: [ExportTable] = []
        for name in fields.tables ?? ExportTable.allCases.map(\.rawValue) {
            if let table = ExportTable(rawValue: name) {
                if !tables.contains(table) { tables.append(table) }
            } else {
                problems.append(
                    ValidationProblem("tables", "\(name) is not a table; known: \(ExportTable.allCases.map(\.rawValue).joined(separator: ", "))"))
            }
        }
        if tables.isEmpty && fields.tables != nil { problems.append(ValidationProblem("tables", "must name at least one table")) }
        try AppError.throwIfAny(problems)
        return ExportSettings(
            projectID: projectID, destination: fields.destination, endpoint: fields.endpoint, region: region,
            accessKeyID: fields.accessKeyID, secretAccessKey: secret, formats: ExportFormat.allCases.filter(formats.contains),
            tables: ExportTable.allCases.filter(tables.contains), firstHour: existing?.firstHour ?? ExportHour(containing: now.milliseconds).start,
            enabled: fields.enabled ?? existing?.enabled ?? true, createdAt: existing?.createdAt ?? now, updatedAt: now)
    }
}
