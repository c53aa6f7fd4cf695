-- Whether taps in social apps' browsers are led out to the system browser: per project (on by
-- default), and per link (NULL: the project's choice).
ALTER TABLE projects ADD COLUMN in_app_escape INTEGER NOT NULL DEFAULT 1;
ALTER TABLE links ADD COLUMN in_app_escape INTEGER;
