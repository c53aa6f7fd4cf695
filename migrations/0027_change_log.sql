-- What another process (the command line, a script, sqlite3) changed in the tables the server
-- keeps in memory, so a running server empties those caches within a second (SQLite has no
-- LISTEN/NOTIFY; PostgreSQL's nodes hear each other through migration postgres/0002). Each change
-- of a watched table appends a row; a link's row names its short code, so only that link's cache
-- entry goes. The server reads the rows after its cursor every 250 ms; the table keeps the newest
-- 256 rows (a server that falls further behind empties everything).
CREATE TABLE change_log (
    seq        INTEGER PRIMARY KEY,
    table_name TEXT NOT NULL,
    link_code  TEXT
);

CREATE TRIGGER change_log_projects_insert AFTER INSERT ON projects BEGIN
    INSERT INTO change_log (table_name) VALUES ('projects');
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;

CREATE TRIGGER change_log_projects_update AFTER UPDATE ON projects BEGIN
    INSERT INTO change_log (table_name) VALUES ('projects');
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;

CREATE TRIGGER change_log_projects_delete AFTER DELETE ON projects BEGIN
    INSERT INTO change_log (table_name) VALUES ('projects');
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;

CREATE TRIGGER change_log_api_keys_insert AFTER INSERT ON api_keys BEGIN
    INSERT INTO change_log (table_name) VALUES ('api_keys');
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;

CREATE TRIGGER change_log_api_keys_update AFTER UPDATE ON api_keys BEGIN
    INSERT INTO change_log (table_name) VALUES ('api_keys');
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;

CREATE TRIGGER change_log_api_keys_delete AFTER DELETE ON api_keys BEGIN
    INSERT INTO change_log (table_name) VALUES ('api_keys');
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;

CREATE TRIGGER change_log_signing_keys_insert AFTER INSERT ON signing_keys BEGIN
    INSERT INTO change_log (table_name) VALUES ('signing_keys');
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;

CREATE TRIGGER change_log_signing_keys_update AFTER UPDATE ON signing_keys BEGIN
    INSERT INTO change_log (table_name) VALUES ('signing_keys');
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;

CREATE TRIGGER change_log_signing_keys_delete AFTER DELETE ON signing_keys BEGIN
    INSERT INTO change_log (table_name) VALUES ('signing_keys');
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;

CREATE TRIGGER change_log_templates_insert AFTER INSERT ON templates BEGIN
    INSERT INTO change_log (table_name) VALUES ('templates');
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;

CREATE TRIGGER change_log_templates_update AFTER UPDATE ON templates BEGIN
    INSERT INTO change_log (table_name) VALUES ('templates');
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;

CREATE TRIGGER change_log_templates_delete AFTER DELETE ON templates BEGIN
    INSERT INTO change_log (table_name) VALUES ('templates');
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;

CREATE TRIGGER change_log_webhook_endpoints_insert AFTER INSERT ON webhook_endpoints BEGIN
    INSERT INTO change_log (table_name) VALUES ('webhook_endpoints');
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;

CREATE TRIGGER change_log_webhook_endpoints_update AFTER UPDATE ON webhook_endpoints BEGIN
    INSERT INTO change_log (table_name) VALUES ('webhook_endpoints');
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;

CREATE TRIGGER change_log_webhook_endpoints_delete AFTER DELETE ON webhook_endpoints BEGIN
    INSERT INTO change_log (table_name) VALUES ('webhook_endpoints');
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;

CREATE TRIGGER change_log_postback_templates_insert AFTER INSERT ON postback_templates BEGIN
    INSERT INTO change_log (table_name) VALUES ('postback_templates');
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;

CREATE TRIGGER change_log_postback_templates_update AFTER UPDATE ON postback_templates BEGIN
    INSERT INTO change_log (table_name) VALUES ('postback_templates');
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;

CREATE TRIGGER change_log_postback_templates_delete AFTER DELETE ON postback_templates BEGIN
    INSERT INTO change_log (table_name) VALUES ('postback_templates');
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;

CREATE TRIGGER change_log_links_insert AFTER INSERT ON links BEGIN
    INSERT INTO change_log (table_name, link_code) VALUES ('links', new.short_code);
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;

CREATE TRIGGER change_log_links_update AFTER UPDATE ON links WHEN new.click_count IS old.click_count BEGIN
    INSERT INTO change_log (table_name, link_code) VALUES ('links', new.short_code);
    INSERT INTO change_log (table_name, link_code) VALUES ('links', old.short_code);
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;

CREATE TRIGGER change_log_links_delete AFTER DELETE ON links BEGIN
    INSERT INTO change_log (table_name, link_code) VALUES ('links', old.short_code);
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;
