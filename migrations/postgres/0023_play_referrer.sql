-- What a link's Play Store URL hands the app through the Install Referrer (SQLite: 0041).
ALTER TABLE projects ADD COLUMN play_referrer TEXT NOT NULL DEFAULT 'utm';
UPDATE projects SET play_referrer = 'warplink' WHERE id IN (SELECT project_id FROM api_keys WHERE prefix LIKE 'wl\_%' ESCAPE '\');
