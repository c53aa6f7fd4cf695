-- Which hosts a project's long links may send people to beyond its own domains and web host, and
-- how many distinct long links one of its domains keeps (its owner may raise it).
ALTER TABLE projects ADD COLUMN long_link_hosts TEXT;
ALTER TABLE projects ADD COLUMN long_links_per_domain INTEGER NOT NULL DEFAULT 10000;
