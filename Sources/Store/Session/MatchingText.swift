import Attribution
import Foundation
import StoreContracts

/// `{"decay":[{"under_seconds":3600,"confidence":0.85},…],"candidate_penalty":0.15}` in the
/// matching_policy column.
enum MatchingText {
    private struct Stored: Codable {
        struct Step: Codable {
            var under_seconds: Int64
            var confidence: Double
        }
        var decay: [Step]?
        var candidate_penalty: Double?
    }

    static func encode(_ overrides: MatchingOverrides) -> String {
        let stored = Stored(
            decay: overrides.decay?.map { .init(under_seconds: $0.underSeconds, confidence: $0.confidence) },
            candidate_penalty: overrides.candidatePenalty)
        return (try? String(decoding: JSONEncoder().encode(stored), as: UTF8.self)) ?? "{}"
    }

    static func decode(_ text: String) -> MatchingOverrides? {
        guard let stored = try? JSONDecoder().decode(Stored.self, from: Data(text.utf8)) else { return nil }
        return MatchingOverrides(
            decay: stored.decay?.map { .init(underSeconds: $0.under_seconds, confidence: $0.confidence) },
            candidatePenalty: stored.candidate_penalty)
    }
}
