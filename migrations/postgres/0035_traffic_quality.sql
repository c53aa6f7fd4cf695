-- Traffic quality (docs/traffic-quality.md): the class of a click's and an install's address
-- (`private_relay`, `carrier_nat`, `hosting`, `vpn` or an operator's own list), why the click
-- that would have won an install was refused, what an attributed install is flagged for, and
-- the project's fraud rules. NULL: nothing known, nothing refused, defaults.
ALTER TABLE clicks ADD COLUMN ip_class TEXT;
ALTER TABLE installs ADD COLUMN ip_class TEXT;
ALTER TABLE installs ADD COLUMN rejected_reasons TEXT;
-- The refused click, whose source and campaign the report groups rejections by.
ALTER TABLE installs ADD COLUMN rejected_click_id TEXT;
ALTER TABLE installs ADD COLUMN quality_flags TEXT;
ALTER TABLE projects ADD COLUMN traffic_quality TEXT;
-- The traffic-quality report reads only the few installs something was said of.
CREATE INDEX installs_quality ON installs (project_id, created_at)
    WHERE rejected_reasons IS NOT NULL OR quality_flags IS NOT NULL;
