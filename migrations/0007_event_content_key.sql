-- LinkForty SDKs re-send their offline queue without an event id of their own: an event with the
-- same install, name, client time and data is the same event. Its key was a content hash in
-- client_event_id, under a unique index: one more random index leaf written per event. The key now
-- sits at the end of events_by_install, which every event has an entry in anyway, so the check is
-- one seek in an index the event writes regardless. Events stored before keep their old key and
-- are not found by the new one: a copy re-sent across the upgrade would be stored a second time.
ALTER TABLE events ADD COLUMN content_key TEXT;
DROP INDEX events_by_install;
CREATE INDEX events_by_install ON events(install_id, occurred_at, content_key);
