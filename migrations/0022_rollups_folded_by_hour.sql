-- The day and project-hour rollups take each hour once it is over, added up from the per-link
-- hours, instead of being upserted by every commit: a commit then writes two rollup rows (the
-- link's hour and its money) where it wrote six, and their pages (docs/performance.md, "Dashboard
-- and rollups"). Hours up to through_hour are in every rollup table; later hours are in
-- rollup_link_hours and rollup_link_hour_money only, until the writer folds them, in the
-- transaction that moves through_hour (RollupDeltas.swift). Readers add the later hours from the
-- link hours (StatsRepository.swift), so any snapshot reads every fact once.
--
-- Everything counted so far is in every table: the first through_hour is the last hour that has
-- counts, or the last full hour, whichever is later.
CREATE TABLE rollup_folded (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    through_hour INTEGER NOT NULL
);
INSERT INTO rollup_folded (id, through_hour) VALUES (1, max(
    coalesce((SELECT max(hour) FROM rollup_link_hours), -1),
    coalesce((SELECT max(hour) FROM rollup_link_hour_money), -1),
    coalesce((SELECT max(hour) FROM rollup_project_hours), -1),
    coalesce((SELECT max(day) * 24 + 23 FROM rollup_link_days), -1),
    CAST(strftime('%s', 'now') AS INTEGER) / 3600 - 1));
