-- Every node caches projects, keys, links, templates and outbound targets; a change made through
-- one node must reach the others' caches (issue 26: within 1 s). Each statement that changes one of
-- these tables sends NOTIFY attributiond_changes with the table's name, delivered at COMMIT (never
-- for a rolled-back change, once per table per transaction), whoever wrote it: a node, psql, a
-- migration. Every node LISTENs (PGChangeListener) and empties the caches of what it hears.
-- links: not for click_count alone, which every counted click moves and no cache holds.

CREATE FUNCTION attributiond_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('attributiond_changes', TG_TABLE_NAME);
    RETURN NULL;
END;
$$;

CREATE TRIGGER projects_changed AFTER INSERT OR UPDATE OR DELETE ON projects FOR EACH STATEMENT EXECUTE FUNCTION attributiond_notify_change();
CREATE TRIGGER api_keys_changed AFTER INSERT OR UPDATE OR DELETE ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION attributiond_notify_change();
CREATE TRIGGER signing_keys_changed AFTER INSERT OR UPDATE OR DELETE ON signing_keys FOR EACH STATEMENT EXECUTE FUNCTION attributiond_notify_change();
CREATE TRIGGER templates_changed AFTER INSERT OR UPDATE OR DELETE ON templates FOR EACH STATEMENT EXECUTE FUNCTION attributiond_notify_change();
CREATE TRIGGER webhook_endpoints_changed AFTER INSERT OR UPDATE OR DELETE ON webhook_endpoints FOR EACH STATEMENT EXECUTE FUNCTION attributiond_notify_change();
CREATE TRIGGER postback_templates_changed AFTER INSERT OR UPDATE OR DELETE ON postback_templates FOR EACH STATEMENT EXECUTE FUNCTION attributiond_notify_change();
CREATE TRIGGER outbox_new_changed AFTER INSERT ON outbox_new FOR EACH STATEMENT EXECUTE FUNCTION attributiond_notify_change();
CREATE TRIGGER links_changed AFTER INSERT OR DELETE ON links FOR EACH STATEMENT EXECUTE FUNCTION attributiond_notify_change();
CREATE TRIGGER links_edited AFTER UPDATE OF id, project_id, template_id, short_code, title, description, original_url, ios_url,
    android_url, web_url, app_scheme, deep_link_path, deep_link_parameters, utm_source, utm_medium, utm_campaign, utm_term,
    utm_content, targeting, og_title, og_description, og_image, attribution_window_hours, append_click_id, expires_at, max_clicks,
    active, external_user_id, options_hash, created_at, updated_at
    ON links FOR EACH STATEMENT EXECUTE FUNCTION attributiond_notify_change();
