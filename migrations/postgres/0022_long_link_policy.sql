-- Which hosts a project's long links may send people to beyond its own domains and web host, and
-- how many distinct long links one of its domains keeps (SQLite: 0040).
ALTER TABLE projects ADD COLUMN long_link_hosts TEXT;
ALTER TABLE projects ADD COLUMN long_links_per_domain BIGINT NOT NULL DEFAULT 10000;
