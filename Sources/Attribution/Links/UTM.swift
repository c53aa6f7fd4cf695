/// Campaign parameters of a link or a click.
public struct UTM: Sendable, Equatable, Hashable {
    public var source: String?
    public var medium: String?
    public var campaign: String?
    public var term: String?
    public var content: String?

    public init(source: String? = nil, medium: String? = nil, campaign: String? = nil, term: String? = nil, content: String? = nil) {
        self.source = source
        self.medium = medium
        self.campaign = campaign
        self.term = term
        self.content = content
    }

    public init(_ map: [String: String]) {
        self.init(source: map["source"], medium: map["medium"], campaign: map["campaign"], term: map["term"], content: map["content"])
    }

    /// `[("utm_source", …), …]` for the values that are set, in the conventional order.
    public var queryItems: [(String, String)] {
        [("utm_source", source), ("utm_medium", medium), ("utm_campaign", campaign), ("utm_term", term), ("utm_content", content)]
            .compactMap { name, value in value.map { (name, $0) } }
    }

    /// `{"source": …}` for the values that are set.
    public var map: [String: String] {
        var map: [String: String] = [:]
        map["source"] = source
        map["medium"] = medium
        map["campaign"] = campaign
        map["term"] = term
        map["content"] = content
        return map
    }

    public var isEmpty: Bool { source == nil && medium == nil && campaign == nil && term == nil && content == nil }

    /// These values, each replaced by `other`'s where `other` has one.
    public func overridden(by other: UTM) -> UTM {
        UTM(
            source: other.source ?? source, medium: other.medium ?? medium, campaign: other.campaign ?? campaign,
            term: other.term ?? term, content: other.content ?? content)
    }
}
