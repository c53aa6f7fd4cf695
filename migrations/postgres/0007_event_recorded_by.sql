-- Who stored an event other than its client: 'trigger' for the `signup` a trigger stores for SKAN.
-- SQLite's events are the outbox's log and leave these out of event.created (0024); here each
-- event writes its own jobs, and the signup's are user.identified's, so the column is only kept
-- the same on both backends (migrate-data copies it).
ALTER TABLE events ADD COLUMN recorded_by TEXT;
