-- What a link's Play Store URL hands the app through the Install Referrer: the link's own UTM
-- values and the click id ('utm'), or WarpLink's shape (`utm_source=warplink`, the link's id) that
-- WarpLink's Android SDK reads. Projects that were issued a WarpLink key keep WarpLink's shape.
ALTER TABLE projects ADD COLUMN play_referrer TEXT NOT NULL DEFAULT 'utm';
UPDATE projects SET play_referrer = 'warplink' WHERE id IN (SELECT project_id FROM api_keys WHERE prefix LIKE 'wl\_%' ESCAPE '\');
