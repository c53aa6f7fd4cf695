-- Routing rules, an A/B split, a password and a destination after expiry per link (JSON text for
-- the rules and variants); each click's variant and country; an install takes its click's variant.
ALTER TABLE links ADD COLUMN rules TEXT;
ALTER TABLE links ADD COLUMN variants TEXT;
ALTER TABLE links ADD COLUMN expired_url TEXT;
ALTER TABLE links ADD COLUMN password_hash TEXT;
ALTER TABLE clicks ADD COLUMN variant TEXT;
ALTER TABLE clicks ADD COLUMN country TEXT;
ALTER TABLE installs ADD COLUMN variant TEXT;
-- A project's named UTM values offered when a link is made (JSON text).
ALTER TABLE projects ADD COLUMN utm_templates TEXT;

-- In the install's own transaction, from the click it was credited to: the install path's SQL
-- stays as it is, and only an install whose click had a variant is written twice.
CREATE TRIGGER installs_take_click_variant AFTER INSERT ON installs
WHEN NEW.click_id IS NOT NULL AND (SELECT variant FROM clicks WHERE click_id = NEW.click_id) IS NOT NULL
BEGIN
    UPDATE installs SET variant = (SELECT variant FROM clicks WHERE click_id = NEW.click_id) WHERE id = NEW.id;
END;

-- A link's clicks by variant, for its A/B report; only clicks of split links are in it.
CREATE INDEX clicks_by_variant ON clicks(link_id, variant, created_at) WHERE variant IS NOT NULL;
