extension StringProtocol {
    /// Without leading and trailing spaces and tabs (line breaks stay), like Foundation's
    /// `trimmingCharacters(in: .whitespaces)` but without bridging to NSString on request paths.
    public func trimmingWhitespace() -> String {
        // Nearly every value has nothing to trim: checking its two end bytes avoids walking
        // grapheme clusters (and Unicode property tables) on every field of every request.
        let text = String(self)
        if let first = text.utf8.first, let last = text.utf8.last, first < 0x80, last < 0x80,
            first != 0x20, first != 0x09, last != 0x20, last != 0x09
        {
            return text
        }
        func isBlank(_ character: Character) -> Bool { character.isWhitespace && !character.isNewline }
        guard let first = firstIndex(where: { !isBlank($0) }), let last = lastIndex(where: { !isBlank($0) }) else { return "" }
        return String(self[first...last])
    }
}

extension StringProtocol {
    /// The first `limit` characters. Characters never outnumber UTF-8 bytes, so a value within
    /// `limit` bytes, which is nearly every one, is copied without walking its grapheme clusters.
    public func prefix(characters limit: Int) -> String {
        utf8.count <= limit ? String(self) : String(prefix(limit))
    }
}
