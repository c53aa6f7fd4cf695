-- install.created webhooks are made from the installs themselves, as event.created's are from
-- the events (0024): the outbox worker reads the installs stored after the cursor 'installs'.
-- The same trigger keeps a deleted newest install's rowid, which a new install takes, after it.
-- Installs stored before this migration had their jobs written with them; the cursor starts after them.

INSERT INTO outbox_cursors (name, position) SELECT 'installs', coalesce(max(rowid), 0) FROM installs;

CREATE TRIGGER installs_log_newest_deleted AFTER DELETE ON installs
WHEN OLD.rowid > (SELECT coalesce(max(rowid), 0) FROM installs) BEGIN
    UPDATE outbox_cursors SET position = min(position, (SELECT coalesce(max(rowid), 0) FROM installs)), generation = generation + 1
    WHERE name = 'installs';
END;
