/// One read the cascade makes through a `ClickSource`, named ahead so that a source whose reads
/// are round trips to another process can make them all in one (`ClickSource.prefetch`).
public enum CandidateRead: Hashable, Sendable {
    case referredBy(clickID: String)
    case onLink(linkID: String, limit: Int)
    case idfv(String, limit: Int)
    case advertisingID(String, limit: Int)
    case network(ipKey: String, after: Timestamp, limit: Int)
}
