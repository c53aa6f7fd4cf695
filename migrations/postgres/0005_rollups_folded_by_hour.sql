-- SQLite's rollup_folded (migrations/0022): the hour up to which the day and project-hour rollups
-- hold every count. rollup_fold() (0003) adds each delta to every rollup table at once, so here
-- they always do: no hour is left for readers to add from the link hours.
CREATE TABLE rollup_folded (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    through_hour BIGINT NOT NULL
);
INSERT INTO rollup_folded (id, through_hour) VALUES (1, 9007199254740991);
