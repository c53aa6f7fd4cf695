-- Clicks arrive many to a statement (PGClickStore writes a batch's clicks in one INSERT): they are
-- counted per statement from its transition table, one delta per project, hour and link, where
-- the row trigger of postgres/0003 called a function per click.

DROP TRIGGER rollup_click_insert ON clicks;
DROP FUNCTION rollup_click_insert();

CREATE FUNCTION rollup_clicks_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO rollup_count_deltas (project_id, at, link_id, in_hours, counts)
    SELECT project_id, created_at / 3600000 * 3600000, coalesce(link_id, ''), true,
           ARRAY[count(*) FILTER (WHERE NOT is_bot), count(*) FILTER (WHERE is_bot), 0, 0, 0, 0, 0, 0, 0, 0, 0]::bigint[]
    FROM inserted WHERE NOT rollup_paused() GROUP BY 1, 2, 3;
    RETURN NULL;
END $$;
CREATE TRIGGER rollup_clicks_inserted AFTER INSERT ON clicks REFERENCING NEW TABLE AS inserted
FOR EACH STATEMENT EXECUTE FUNCTION rollup_clicks_inserted();
