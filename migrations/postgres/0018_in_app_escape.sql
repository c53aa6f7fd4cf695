-- Whether taps in social apps' browsers are led out to the system browser (SQLite: 0036).
ALTER TABLE projects ADD COLUMN in_app_escape BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE links ADD COLUMN in_app_escape BOOLEAN;

-- A link's switch is an edit every node's cache must hear of (0002, 0014, 0017).
DROP TRIGGER links_edited ON links;
CREATE TRIGGER links_edited AFTER UPDATE OF id, project_id, template_id, short_code, domain, fdl, in_app_escape, title, description,
    original_url, ios_url, android_url, web_url, app_scheme, deep_link_path, deep_link_parameters, utm_source, utm_medium,
    utm_campaign, utm_term, utm_content, targeting, og_title, og_description, og_image, attribution_window_hours, append_click_id,
    expires_at, max_clicks, active, external_user_id, options_hash, created_at, updated_at
    ON links FOR EACH STATEMENT EXECUTE FUNCTION attributiond_notify_change();
