-- A project's own link domains (links.shop.com): a request whose Host is one of them serves that
-- project's links and .well-known files only. A name belongs to one project.
CREATE TABLE project_domains (
    id          TEXT PRIMARY KEY,
    project_id  TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    domain      TEXT NOT NULL UNIQUE,
    created_at  BIGINT NOT NULL
);
CREATE INDEX project_domains_by_project ON project_domains (project_id, created_at);

-- Every node keeps the names in memory (migration 0002).
CREATE TRIGGER project_domains_changed AFTER INSERT OR UPDATE OR DELETE ON project_domains
    FOR EACH STATEMENT EXECUTE FUNCTION attributiond_notify_change();
