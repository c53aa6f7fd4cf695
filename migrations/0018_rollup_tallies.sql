-- Installs counted by one more property, per project and hour of the install: the confidence band
-- of attributed installs (dimension 'confidence': 'high' ≥ 0.80, 'medium' ≥ 0.60, 'low' below —
-- the fingerprint tier's one, two and three-or-more candidates) and the SKAN conversion value of
-- each window (dimensions 'skan1', 'skan2', 'skan3': the fine value, or the coarse one when the
-- window has no fine value). Like 0015, triggers hand each change to the writer's collector
-- (rollup_tally, which answers 1) or, on any other connection, to rollup_pending_tallies.

CREATE TABLE rollup_tallies (
    project_id TEXT NOT NULL,
    dimension TEXT NOT NULL,
    hour INTEGER NOT NULL,
    value TEXT NOT NULL,
    installs INTEGER NOT NULL,
    PRIMARY KEY (project_id, dimension, hour, value)
) WITHOUT ROWID;

CREATE TABLE rollup_pending_tallies (
    project_id TEXT NOT NULL,
    at INTEGER NOT NULL,
    dimension TEXT NOT NULL,
    value TEXT NOT NULL,
    installs INTEGER NOT NULL
);

CREATE TRIGGER tally_install_insert AFTER INSERT ON installs WHEN NEW.attributed BEGIN
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    SELECT NEW.project_id, NEW.created_at, 'confidence', CASE WHEN NEW.confidence >= 0.8 THEN 'high' WHEN NEW.confidence >= 0.6 THEN 'medium' ELSE 'low' END, 1
    WHERE NOT rollup_tally(NEW.project_id, NEW.created_at, 'confidence', CASE WHEN NEW.confidence >= 0.8 THEN 'high' WHEN NEW.confidence >= 0.6 THEN 'medium' ELSE 'low' END, 1);
END;

CREATE TRIGGER tally_install_update AFTER UPDATE OF attributed, confidence ON installs
WHEN OLD.attributed IS NOT NEW.attributed OR OLD.confidence IS NOT NEW.confidence BEGIN
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    SELECT OLD.project_id, OLD.created_at, 'confidence', CASE WHEN OLD.confidence >= 0.8 THEN 'high' WHEN OLD.confidence >= 0.6 THEN 'medium' ELSE 'low' END, -1
    WHERE OLD.attributed AND NOT rollup_tally(OLD.project_id, OLD.created_at, 'confidence', CASE WHEN OLD.confidence >= 0.8 THEN 'high' WHEN OLD.confidence >= 0.6 THEN 'medium' ELSE 'low' END, -1);
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    SELECT NEW.project_id, NEW.created_at, 'confidence', CASE WHEN NEW.confidence >= 0.8 THEN 'high' WHEN NEW.confidence >= 0.6 THEN 'medium' ELSE 'low' END, 1
    WHERE NEW.attributed AND NOT rollup_tally(NEW.project_id, NEW.created_at, 'confidence', CASE WHEN NEW.confidence >= 0.8 THEN 'high' WHEN NEW.confidence >= 0.6 THEN 'medium' ELSE 'low' END, 1);
END;

-- BEFORE, like rollup_install_delete: the cascade removes the SKAN rows once the install is gone.
CREATE TRIGGER tally_install_delete BEFORE DELETE ON installs BEGIN
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    SELECT OLD.project_id, OLD.created_at, 'confidence', CASE WHEN OLD.confidence >= 0.8 THEN 'high' WHEN OLD.confidence >= 0.6 THEN 'medium' ELSE 'low' END, -1
    WHERE OLD.attributed AND NOT rollup_tally(OLD.project_id, OLD.created_at, 'confidence', CASE WHEN OLD.confidence >= 0.8 THEN 'high' WHEN OLD.confidence >= 0.6 THEN 'medium' ELSE 'low' END, -1);
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    SELECT OLD.project_id, OLD.created_at, 'skan' || s.window, coalesce(CAST(s.fine AS TEXT), s.coarse), -1 FROM skan_state s
    WHERE s.install_id = OLD.id AND coalesce(s.fine, s.coarse) IS NOT NULL
        AND NOT rollup_tally(OLD.project_id, OLD.created_at, 'skan' || s.window, coalesce(CAST(s.fine AS TEXT), s.coarse), -1);
END;

CREATE TRIGGER tally_skan_insert AFTER INSERT ON skan_state WHEN coalesce(NEW.fine, NEW.coarse) IS NOT NULL BEGIN
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    SELECT i.project_id, i.created_at, 'skan' || NEW.window, coalesce(CAST(NEW.fine AS TEXT), NEW.coarse), 1 FROM installs i
    WHERE i.id = NEW.install_id AND NOT rollup_tally(i.project_id, i.created_at, 'skan' || NEW.window, coalesce(CAST(NEW.fine AS TEXT), NEW.coarse), 1);
END;

CREATE TRIGGER tally_skan_update AFTER UPDATE OF fine, coarse ON skan_state
WHEN OLD.fine IS NOT NEW.fine OR OLD.coarse IS NOT NEW.coarse BEGIN
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    SELECT i.project_id, i.created_at, 'skan' || OLD.window, coalesce(CAST(OLD.fine AS TEXT), OLD.coarse), -1 FROM installs i
    WHERE i.id = OLD.install_id AND coalesce(OLD.fine, OLD.coarse) IS NOT NULL
        AND NOT rollup_tally(i.project_id, i.created_at, 'skan' || OLD.window, coalesce(CAST(OLD.fine AS TEXT), OLD.coarse), -1);
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    SELECT i.project_id, i.created_at, 'skan' || NEW.window, coalesce(CAST(NEW.fine AS TEXT), NEW.coarse), 1 FROM installs i
    WHERE i.id = NEW.install_id AND coalesce(NEW.fine, NEW.coarse) IS NOT NULL
        AND NOT rollup_tally(i.project_id, i.created_at, 'skan' || NEW.window, coalesce(CAST(NEW.fine AS TEXT), NEW.coarse), 1);
END;

-- Deleted on their own (an install's own deletion went through tally_install_delete).
CREATE TRIGGER tally_skan_delete AFTER DELETE ON skan_state WHEN coalesce(OLD.fine, OLD.coarse) IS NOT NULL BEGIN
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    SELECT i.project_id, i.created_at, 'skan' || OLD.window, coalesce(CAST(OLD.fine AS TEXT), OLD.coarse), -1 FROM installs i
    WHERE i.id = OLD.install_id AND NOT rollup_tally(i.project_id, i.created_at, 'skan' || OLD.window, coalesce(CAST(OLD.fine AS TEXT), OLD.coarse), -1);
END;

-- What the database already holds.
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT project_id, 'confidence', created_at / 3600000, CASE WHEN confidence >= 0.8 THEN 'high' WHEN confidence >= 0.6 THEN 'medium' ELSE 'low' END, count(*)
FROM installs WHERE attributed GROUP BY 1, 2, 3, 4;
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT i.project_id, 'skan' || s.window, i.created_at / 3600000, coalesce(CAST(s.fine AS TEXT), s.coarse), count(*)
FROM skan_state s JOIN installs i ON i.id = s.install_id WHERE coalesce(s.fine, s.coarse) IS NOT NULL GROUP BY 1, 2, 3, 4;
