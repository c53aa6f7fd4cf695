import Attribution
import Dispatch
import Foundation
@_spi(StoreInternals) import Store
import StoreContracts

/// One project ("Bench", token `bench-token-0123456789abcdef`) with 1,000 links and the given
/// rows spread evenly over the 90 days that end now, written by SQL in chunks of
/// 100,000 through the writer, then counted as `attributiond rollups rebuild` counts them. Clicks and installs carry a platform,
/// a system version, one of 40 countries and (clicks) one of 12 referring sites; events have five
/// names: breakdowns with as many values as a real project's.
func generate(path: String, clicks: Int, installs: Int, events: Int, payments: Int) throws {
    let started = DispatchTime.now().uptimeNanoseconds
    let database = try Database(path: path)
    let store = SQLiteStore(database: database)
    var settings = ProjectSettings()
    settings.iosStoreURL = "https://apps.apple.com/app/id1"
    let project = try store.projects.create(
        name: "Bench", settings: settings, testMode: false,
        token: "bench-token-0123456789abcdef", apiKey: nil
    ).project.id
    let day: Int64 = 86_400_000
    // Up to now, as a running server's rows are: rows later today would sit in the link hours
    // the writer has not folded yet, and every stats read of today would add them up.
    let end = Timestamp(Date()).milliseconds
    let begin = end - 90 * day
    try database.writeAndWait { connection in
        try connection.run(
            """
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 999)
            INSERT INTO links (id, project_id, short_code, title, utm_source, utm_campaign, created_at, updated_at)
            SELECT printf('link-%04d', i), ?1, printf('code%04d', i), printf('Campaign link %d', i), 'google', printf('campaign-%d', i % 20), ?2, ?2
            FROM n
            """, project, begin)
    }
    /// `sql` inserts rows `?2 ..< ?3` of `total` (?1: the project, ?4: the first time, ?5: ms per row).
    func fill(_ what: String, _ total: Int, _ sql: String) throws {
        guard total > 0 else { return }
        let step = 90 * day / Int64(total)
        var from = 0
        while from < total {
            let to = min(total, from + 100_000)
            try database.writeAndWait { connection in
                try connection.run(
                    "WITH RECURSIVE n(i) AS (SELECT ?2 UNION ALL SELECT i + 1 FROM n WHERE i < ?3 - 1) " + sql,
                    project, from, to, begin, step)
            }
            from = to
        }
        print("\(what): \(total)")
    }
    try fill(
        "clicks", clicks,
        """
        INSERT INTO clicks (click_id, project_id, link_id, created_at, ip, ip_key, platform, os_version, country, referer, is_bot)
        SELECT 'click-' || i, ?1, printf('link-%04d', (i * 7919) % 1000), ?4 + i * ?5,
               '10.' || (i % 250) || '.' || (i / 250 % 250) || '.9', '10.' || (i % 250) || '.' || (i / 250 % 250) || '.9',
               CASE i % 3 WHEN 0 THEN 'ios' WHEN 1 THEN 'android' ELSE 'desktop' END,
               CASE i % 3 WHEN 0 THEN (15 + i % 4) || '.' || (i % 7) WHEN 1 THEN CAST(10 + i % 6 AS TEXT) END,
               \(countryExpression("i")), \(referrerExpression("i")), i % 25 = 0 FROM n
        """)
    try fill(
        "installs", installs,
        """
        INSERT INTO installs (id, project_id, api, created_at, last_seen_at, match_type, attributed, confidence, matched_factors, link_id, platform,
                              user_id, os_version, country, click_id)
        SELECT 'install-' || i, ?1, 'linkrunner', ?4 + i * ?5, ?4 + i * ?5,
               CASE i % 5 WHEN 0 THEN 'deterministic' WHEN 1 THEN 'probabilistic' WHEN 2 THEN 'probabilistic' ELSE 'none' END,
               i % 5 < 3, CASE i % 5 WHEN 0 THEN 1.0 WHEN 1 THEN 0.85 WHEN 2 THEN 0.65 ELSE 0 END,
               CASE WHEN i % 5 < 3 THEN '["ip","user_agent"]' ELSE '[]' END,
               CASE WHEN i % 5 < 3 THEN printf('link-%04d', (i * 31) % 1000) END, 'ios', CASE WHEN i % 3 = 0 THEN 'user-' || i END,
               (15 + i % 4) || '.' || (i % 7), \(countryExpression("i")), CASE WHEN i % 5 < 3 THEN 'click-' || (i * 10) END FROM n
        """)
    let installCount = max(1, installs)
    try fill(
        "events", events,
        """
        INSERT INTO events (id, project_id, install_id, name, occurred_at, received_at, revenue, currency)
        SELECT 'event-' || i, ?1, 'install-' || (i % \(installCount)),
               CASE WHEN i % 10 = 0 THEN 'purchase' WHEN i % 10 < 3 THEN 'signup' WHEN i % 10 = 3 THEN 'share' WHEN i % 10 = 4 THEN 'level_complete' ELSE 'open' END,
               ?4 + i * ?5, ?4 + i * ?5, CASE WHEN i % 10 = 0 THEN (i % 5000) / 100.0 END, CASE WHEN i % 10 = 0 THEN 'USD' END FROM n
        """)
    try fill(
        "payments", payments,
        """
        INSERT INTO payments (id, project_id, install_id, payment_id, user_id, amount, currency, created_at)
        SELECT 'payment-' || i, ?1, 'install-' || ((i * 7) % \(installCount)), 'pay-' || i, 'user-' || i,
               (i % 10000) / 100.0, CASE WHEN i % 4 = 0 THEN 'EUR' ELSE 'USD' END, ?4 + i * ?5 FROM n
        """)
    try database.writeAndWait { try RollupRecount.rebuild($0) }
    try database.writeAndWait { try $0.execute("ANALYZE") }
    print(String(format: "generated in %.0f s", Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9))
}

/// One of 40 countries for row `i` (an SQL expression), some far more often than others.
private func countryExpression(_ i: String) -> String {
    let codes = [
        "US", "DE", "FR", "GB", "IN", "BR", "JP", "CA", "ES", "IT", "MX", "NL", "SE", "PL", "TR", "KR", "AU", "AR", "CO", "ID",
        "PH", "VN", "TH", "EG", "NG", "ZA", "SA", "AE", "IL", "CH", "AT", "BE", "PT", "IE", "NO", "DK", "FI", "CZ", "RO", "GR",
    ]
    return "CASE (\(i) * 13) % 100 " + codes.enumerated().map { "WHEN \($0.offset) THEN '\($0.element)'" }.joined(separator: " ") + " ELSE 'US' END"
}

/// One of 12 referring pages, or none, for row `i` (an SQL expression).
private func referrerExpression(_ i: String) -> String {
    let sites = [
        "https://www.instagram.com/", "https://l.instagram.com/?u=x", "https://www.tiktok.com/@shop", "https://t.co/abc",
        "https://www.facebook.com/", "https://m.facebook.com/story", "https://www.google.com/", "https://www.youtube.com/watch?v=1",
        "https://www.reddit.com/r/apps", "https://news.ycombinator.com/", "https://mail.google.com/", "https://shop.example.com/blog",
    ]
    return "CASE (\(i) * 7) % 16 " + sites.enumerated().map { "WHEN \($0.offset) THEN '\($0.element)'" }.joined(separator: " ") + " END"
}
