/// The two backends tests run against: store tests take it as a parameter, API tests from
/// `ATTRIBUTIOND_TEST_BACKEND`. What one does, the other must.
public enum Backend: String, CaseIterable, CustomStringConvertible, Sendable {
    case sqlite, postgres
    public var description: String { rawValue }
}
