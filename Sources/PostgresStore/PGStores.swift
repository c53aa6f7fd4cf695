public import Attribution
public import PostgresClient
@_spi(StoreInternals) import Store
public import StoreContracts

/// The stores written once for both backends, on this database (the same implementations as
/// SQLite's).
extension PGPool {
    /// The pool's sessions with a writer of its own (stores that only read or write through
    /// transactions of the pool).
    var source: PGSource { PGSource(pool: self, writer: PGWriter(pool: self)) }
    private func shared(clock: any Clock = SystemClock()) -> AggregateStores {
        let source = source
        return SharedStores.over(source, reads: source, clock: clock, clicks: PGClickStore(pool: self, writer: source.writer))
    }
    public func browseStore() -> any BrowseStore { shared().browse }
    public func signingKeyStore() -> any SigningKeyStore { shared().signingKeys }
    public func templateStore() -> any TemplateStore { shared().templates }
    public func linkStore() -> any LinkStore { shared().links }
    public func projectStore(clock: any Clock = SystemClock()) -> any ProjectStore { shared(clock: clock).projects }
    public func postbackStore() -> any PostbackStore { shared().postbacks }
    public func appleAdsNameStore() -> any AppleAdsNameStore { shared().appleAdsNames }
    public func dashboardStore() -> any DashboardStore { shared().dashboard }
}

extension PGPoolErrors {
    /// The pool's errors as the store's: `StoreError.unavailable` (503 with Retry-After at the
    /// API) and `StoreError.unstorable` (the client's to fix).
    public static let store = PGPoolErrors(unavailable: { StoreError.unavailable($0) }, unstorable: { StoreError.unstorable($0) })
}
