-- A project's own link domains (links.shop.com): a request whose Host is one of them serves that
-- project's links and .well-known files only. A name belongs to one project.
CREATE TABLE project_domains (
    id          TEXT PRIMARY KEY,
    project_id  TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    domain      TEXT NOT NULL UNIQUE,
    created_at  INTEGER NOT NULL
);
CREATE INDEX project_domains_by_project ON project_domains (project_id, created_at);

-- Every node keeps the names in memory: other processes' changes reach it through the change log.
CREATE TRIGGER change_log_project_domains_insert AFTER INSERT ON project_domains BEGIN
    INSERT INTO change_log (table_name) VALUES ('project_domains');
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;
CREATE TRIGGER change_log_project_domains_delete AFTER DELETE ON project_domains BEGIN
    INSERT INTO change_log (table_name) VALUES ('project_domains');
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;
