-- Why each new install was attributed as it was (SQLite's migration 0029).
ALTER TABLE installs ADD COLUMN explanation TEXT;
