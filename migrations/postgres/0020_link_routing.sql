-- Routing rules, an A/B split, a password and a destination after expiry per link; each click's
-- variant and country; an install takes its click's variant (SQLite: 0038).
ALTER TABLE links ADD COLUMN rules TEXT;
ALTER TABLE links ADD COLUMN variants TEXT;
ALTER TABLE links ADD COLUMN expired_url TEXT;
ALTER TABLE links ADD COLUMN password_hash TEXT;
ALTER TABLE clicks ADD COLUMN variant TEXT;
ALTER TABLE clicks ADD COLUMN country TEXT;
ALTER TABLE installs ADD COLUMN variant TEXT;
ALTER TABLE projects ADD COLUMN utm_templates TEXT;

-- A link's clicks by variant, for its A/B report; only clicks of split links are in it.
CREATE INDEX clicks_by_variant ON clicks(link_id, variant, created_at) WHERE variant IS NOT NULL;

CREATE FUNCTION install_take_click_variant() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE installs SET variant = c.variant FROM clicks c
    WHERE installs.id = NEW.id AND c.click_id = NEW.click_id AND c.variant IS NOT NULL;
    RETURN NULL;
END $$;
CREATE TRIGGER installs_take_click_variant AFTER INSERT ON installs
    FOR EACH ROW WHEN (NEW.click_id IS NOT NULL) EXECUTE FUNCTION install_take_click_variant();

-- The new link columns are edits every node's cache must hear of (0002, 0014, 0017, 0018).
DROP TRIGGER links_edited ON links;
CREATE TRIGGER links_edited AFTER UPDATE OF id, project_id, template_id, short_code, domain, fdl, in_app_escape, title, description,
    original_url, ios_url, android_url, web_url, app_scheme, deep_link_path, deep_link_parameters, utm_source, utm_medium,
    utm_campaign, utm_term, utm_content, targeting, og_title, og_description, og_image, attribution_window_hours, append_click_id,
    expires_at, max_clicks, active, external_user_id, options_hash, created_at, updated_at, rules, variants, expired_url,
    password_hash
    ON links FOR EACH STATEMENT EXECUTE FUNCTION attributiond_notify_change();
