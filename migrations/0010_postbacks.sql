-- Ad-network postbacks (docs/outbound.md, "Ad-network postbacks"): templates per project,
-- and the network's own click id kept with each click that carried one on the link URL.

CREATE TABLE postback_templates (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    -- Matched against the utm_source of the click an install was attributed to (case-insensitive).
    network TEXT NOT NULL,
    -- `install`, `payment`, or an event name.
    trigger TEXT NOT NULL,
    method TEXT NOT NULL DEFAULT 'GET',
    url TEXT NOT NULL,
    body TEXT,
    enabled INTEGER NOT NULL DEFAULT 1,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX postback_templates_by_project ON postback_templates (project_id, network);

-- The network's click id (`gclid`, `fbclid`, …) and the parameter it came in.
ALTER TABLE clicks ADD COLUMN network_click_id TEXT;
ALTER TABLE clicks ADD COLUMN network_click_parameter TEXT;

-- Extra query parameter names that carry a network's click id, beyond the built-in ones (JSON array).
ALTER TABLE projects ADD COLUMN click_id_parameters TEXT;
