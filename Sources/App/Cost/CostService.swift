public import Attribution
import StoreContracts

/// A project's ad spend (docs/cost.md): uploaded as CSV, read back by day.
public struct CostService: Sendable {
    let store: any StoreBackend
    let clock: any Clock

    /// Stores an upload's rows, all or none: a refused cell refuses the upload, each refusal
    /// naming its line and column (`AppError.invalid`). Rows name their currency or are the
    /// project's.
    public func importCSV(_ bytes: [UInt8], project: Project, source: String = "csv") throws -> (added: Int, replaced: Int) {
        switch CostCSV.rows(bytes, currency: project.settings.currency) {
        case .failure(let refused): throw AppError(refused)
        case .success(let rows):
            guard !rows.isEmpty else { throw AppError.invalidField("file", "the upload has a header and no row") }
            return try store.costs.save(rows, projectID: project.id, source: source, at: clock.now())
        }
    }

    /// The project's rows of the days in [since, until] (`YYYY-MM-DD`, both included).
    public func rows(project: Project, since: String, until: String) throws -> [CostRow] {
        try Self.checkDays(since: since, until: until)
        return try store.costs.rows(projectID: project.id, since: since, until: until)
    }

    /// Whether the project has cost on one of the days in [since, until] (`YYYY-MM-DD`).
    public func hasRows(project: Project, since: String, until: String) throws -> Bool {
        try store.costs.hasRows(projectID: project.id, since: since, until: until)
    }

    /// A range of days as the cost and ROAS reports take it: two `YYYY-MM-DD`, in order.
    static func checkDays(since: String, until: String) throws {
        var problems: [ValidationProblem] = []
        if !CostCSV.isDay(since) { problems.append(ValidationProblem("since", "must be a day as YYYY-MM-DD")) }
        if !CostCSV.isDay(until) { problems.append(ValidationProblem("until", "must be a day as YYYY-MM-DD")) }
        if problems.isEmpty, since > until { problems.append(ValidationProblem("until", "must not be before since")) }
        try AppError.throwIfAny(problems)
    }
}

extension AppError {
    /// An upload's refusals, each keyed by its line and column (`line 3, column spend`).
    init(_ refused: CostCSV.Refused) {
        self = .invalid(
            refused.refusals.map { refusal in
                ValidationProblem(
                    refusal.line > 0 ? "line \(refusal.line)" + (refusal.column.map { ", column \($0)" } ?? "") : "file", refusal.reason)
            })
    }
}
