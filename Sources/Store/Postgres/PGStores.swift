public import Attribution
public import PostgresClient

/// The stores written once for both backends, on this database (the same implementations as
/// SQLite's).
extension PGPool {
    /// The pool's sessions with a writer of its own (stores that only read or write through
    /// transactions of the pool).
    var source: PGSource { PGSource(pool: self, writer: PGWriter(pool: self)) }
    public func browseStore() -> any BrowseStore { Browse(source: source) }
    public func signingKeyStore() -> any SigningKeyStore { SigningKeys(source: source) }
    public func templateStore() -> any TemplateStore { Templates(source: source) }
    public func linkStore() -> any LinkStore { Links(source: source) }
    public func projectStore(clock: any Clock = SystemClock()) -> any ProjectStore { Projects(source: source, clock: clock) }
    public func postbackStore() -> any PostbackStore { Postbacks(source: source) }
    public func appleAdsNameStore() -> any AppleAdsNameStore { AppleAdsNameRecords(source: source) }
    public func dashboardStore() -> any DashboardStore { DashboardRecords(source: source) }
}

extension PGPoolErrors {
    /// The pool's errors as the store's: `StoreError.unavailable` (503 with Retry-After at the
    /// API) and `StoreError.unstorable` (the client's to fix).
    public static let store = PGPoolErrors(unavailable: { StoreError.unavailable($0) }, unstorable: { StoreError.unstorable($0) })
}
