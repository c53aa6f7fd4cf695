public import HTTP

/// Composes every API's routes into one router. Fixed prefixes are reserved so the short-link
/// catch-all (`/:code`) never answers for them.
public enum Application {
    /// First path segments that belong to fixed routes, never to short links
    /// (shared/spec/links-and-clicks.md, "Click routes").
    public static let reservedPrefixes = ["api", "health", ".well-known", "metrics", "c", "admin"]

    public static func makeRouter() -> Router {
        var router = RouterBuilder()
        for prefix in reservedPrefixes { router.reserve(prefix) }
        HealthRoutes.register(in: &router)
        return router.build()
    }
}
