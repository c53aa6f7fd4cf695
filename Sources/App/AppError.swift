public import Attribution

/// What a use case refuses, for the API to answer in its own wire format.
public enum AppError: Error, Sendable, Equatable {
    /// The thing named does not exist (or is not the caller's project's).
    case notFound(String)
    /// Well-formed input whose values are not acceptable, each problem naming its field.
    case invalid([ValidationProblem])

    /// One problem with one field.
    public static func invalidField(_ key: String, _ message: String) -> AppError { .invalid([ValidationProblem(key, message)]) }

    /// Throws `.invalid` when there are problems.
    public static func throwIfAny(_ problems: [ValidationProblem]) throws {
        if !problems.isEmpty { throw AppError.invalid(problems) }
    }

    public var message: String {
        switch self {
        case .notFound(let message): message
        case .invalid(let problems): problems.map(\.description).joined(separator: "; ")
        }
    }
}
