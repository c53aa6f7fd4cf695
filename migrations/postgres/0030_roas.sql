-- As SQLite's 0048: a project's reporting currency, and the revenue of each link's installs by the
-- span of days after install it came in (`link_cohort_revenue` tallies at the install's hour).
ALTER TABLE projects ADD COLUMN reporting_currency TEXT NOT NULL DEFAULT 'USD';

INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT project_id, 'link_cohort_revenue', hour,
    kind || ':' || currency || ':' || CAST(CASE WHEN n <= 1 THEN n WHEN n <= 3 THEN 3 WHEN n <= 7 THEN 7 WHEN n <= 14 THEN 14 ELSE 30 END AS TEXT) || ':' || link_id,
    sum(micros)
FROM (
    SELECT i.project_id, i.created_at / 3600000 AS hour, i.link_id, 'event' AS kind, coalesce(e.currency, '') AS currency,
        (coalesce(e.charted_at, e.received_at) - i.created_at) / 86400000 AS n, round((e.revenue * 1000000)::numeric)::bigint AS micros
    FROM events e JOIN installs i ON i.id = e.install_id
    WHERE NOT i.is_test AND i.attributed AND coalesce(i.link_id, '') <> '' AND e.revenue IS NOT NULL
    UNION ALL
    SELECT i.project_id, i.created_at / 3600000, i.link_id, 'payment', p.currency,
        (p.created_at - i.created_at) / 86400000, round((p.amount * 1000000)::numeric)::bigint
    FROM payments p JOIN installs i ON i.id = p.install_id
    WHERE NOT i.is_test AND i.attributed AND coalesce(i.link_id, '') <> '' AND p.removed_at IS NULL
) AS revenue
WHERE n BETWEEN 0 AND 30
GROUP BY 1, 2, 3, 4;
