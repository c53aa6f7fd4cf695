/// Candidate clicks for one install, as the attribution cascade asks for them. The store answers
/// on the connection of the install's write transaction, so the choice of a click and its claim see
/// one state; tests answer from memory.
///
/// Every method answers unclaimed human clicks of the install's project, newest first, each with
/// its attribution window resolved (the link's, else its template's, else the project's).
public protocol ClickSource {
    /// The click an install referrer names (Play Install Referrer `click_id`).
    func click(referredBy clickID: String) throws -> CandidateClick?
    /// Clicks on the link an install referrer names (WarpLink's `utm_content=<link uuid>`).
    func clicks(onLink linkID: String, limit: Int) throws -> [CandidateClick]
    func clicks(idfv: String, limit: Int) throws -> [CandidateClick]
    func clicks(advertisingID: String, limit: Int) throws -> [CandidateClick]
    /// Clicks from the same network (`NetworkKey`) made after `after`.
    func clicks(network ipKey: String, after: Timestamp, limit: Int) throws -> [CandidateClick]
    /// Told, before any of the methods above, every read the cascade will make when no
    /// deterministic click matches (the network read is then wasted when one does).
    func prefetch(_ reads: [CandidateRead]) throws
}

extension ClickSource {
    /// A source whose reads are function calls has nothing to gain from knowing them ahead.
    public func prefetch(_ reads: [CandidateRead]) throws {}
}
