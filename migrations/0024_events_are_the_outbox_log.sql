-- event.created webhooks are made from the events themselves: the outbox worker reads the events
-- stored after a cursor, then writes their jobs into outbox_jobs and moves the cursor on in one
-- transaction. An event's own transaction writes no job row (docs/performance.md, "The outbox").
-- On one writer rowids grow in commit order, so nothing commits behind the cursor, except a row
-- that takes the rowid of a deleted newest event: SQLite gives a new row max(rowid) + 1. So when
-- the newest event is deleted the cursor comes down to the newest left, and its generation
-- changes: a move that read the events before then does not move the cursor (nor write jobs).
-- Events stored before this migration had their jobs written with them; the cursor starts after them.
-- The `signup` event a trigger stores for SKAN (recorded_by 'trigger') has no event.created: its
-- webhook is user.identified, as before.

ALTER TABLE events ADD COLUMN recorded_by TEXT;

CREATE TABLE outbox_cursors (
    name       TEXT PRIMARY KEY,
    position   INTEGER NOT NULL,
    generation INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

INSERT INTO outbox_cursors (name, position) SELECT 'events', coalesce(max(rowid), 0) FROM events;

CREATE TRIGGER events_log_newest_deleted AFTER DELETE ON events
WHEN OLD.rowid > (SELECT coalesce(max(rowid), 0) FROM events) BEGIN
    UPDATE outbox_cursors SET position = min(position, (SELECT coalesce(max(rowid), 0) FROM events)), generation = generation + 1
    WHERE name = 'events';
END;
