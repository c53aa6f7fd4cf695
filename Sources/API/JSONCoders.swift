import Foundation

/// Encoders configured once and shared (their configuration never changes after start-up).
enum JSONCoders {
    static let sortedEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Keys sorted too: responses are the same bytes for the same data (readable, diffable, cacheable).
    static let encoder: JSONEncoder = sortedEncoder
}
