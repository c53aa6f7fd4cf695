-- The project's time zone (an IANA name): the dashboard's days, ranges and charts are its days.
ALTER TABLE projects ADD COLUMN time_zone TEXT NOT NULL DEFAULT 'UTC';
