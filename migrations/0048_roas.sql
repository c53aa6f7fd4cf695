-- The return-on-ad-spend report (docs/cost.md). A project's reporting currency, which its reports
-- convert cost and revenue into (every stored amount keeps its own). And the revenue of each
-- link's installs by the span of days after install it came in (`link_cohort_revenue` tallies,
-- counted at the install's hour, as `Counting.linkCohortRevenue` counts them from now on): payments
-- not removed and events with revenue, in their first 31 days, of installs credited to a link.
ALTER TABLE projects ADD COLUMN reporting_currency TEXT NOT NULL DEFAULT 'USD';

INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT project_id, 'link_cohort_revenue', hour,
    kind || ':' || currency || ':' || CAST(CASE WHEN n <= 1 THEN n WHEN n <= 3 THEN 3 WHEN n <= 7 THEN 7 WHEN n <= 14 THEN 14 ELSE 30 END AS TEXT) || ':' || link_id,
    sum(micros)
FROM (
    SELECT i.project_id, i.created_at / 3600000 AS hour, i.link_id, 'event' AS kind, coalesce(e.currency, '') AS currency,
        (coalesce(e.charted_at, e.received_at) - i.created_at) / 86400000 AS n, CAST(round(e.revenue * 1000000) AS INTEGER) AS micros
    FROM events e JOIN installs i ON i.id = e.install_id
    WHERE NOT i.is_test AND i.attributed AND coalesce(i.link_id, '') <> '' AND e.revenue IS NOT NULL
    UNION ALL
    SELECT i.project_id, i.created_at / 3600000, i.link_id, 'payment', p.currency,
        (p.created_at - i.created_at) / 86400000, CAST(round(p.amount * 1000000) AS INTEGER)
    FROM payments p JOIN installs i ON i.id = p.install_id
    WHERE NOT i.is_test AND i.attributed AND coalesce(i.link_id, '') <> '' AND p.removed_at IS NULL
) AS revenue
WHERE n BETWEEN 0 AND 30
GROUP BY 1, 2, 3, 4;
