-- Links get the project domain they live on ('' for none), and short codes become unique per
-- domain (FDL imports bring the same code on several domains).
ALTER TABLE links ADD COLUMN domain TEXT NOT NULL DEFAULT '';
ALTER TABLE links DROP CONSTRAINT links_short_code_key;
CREATE UNIQUE INDEX links_by_domain_code ON links (domain, short_code);

-- A link moved to another domain is an edit every node's cache must hear of (0002).
DROP TRIGGER links_edited ON links;
CREATE TRIGGER links_edited AFTER UPDATE OF id, project_id, template_id, short_code, domain, title, description, original_url, ios_url,
    android_url, web_url, app_scheme, deep_link_path, deep_link_parameters, utm_source, utm_medium, utm_campaign, utm_term,
    utm_content, targeting, og_title, og_description, og_image, attribution_window_hours, append_click_id, expires_at, max_clicks,
    active, external_user_id, options_hash, created_at, updated_at
    ON links FOR EACH STATEMENT EXECUTE FUNCTION attributiond_notify_change();
