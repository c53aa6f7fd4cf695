extension StringProtocol {
    /// Without leading and trailing spaces and tabs (line breaks stay), like Foundation's
    /// `trimmingCharacters(in: .whitespaces)` but without bridging to NSString on request paths.
    public func trimmingWhitespace() -> String {
        func isBlank(_ character: Character) -> Bool { character.isWhitespace && !character.isNewline }
        guard let first = firstIndex(where: { !isBlank($0) }), let last = lastIndex(where: { !isBlank($0) }) else { return "" }
        return String(self[first...last])
    }
}
