-- Ad spend per project, as networks report it (docs/cost.md): one row per day in the project's
-- time zone, network, campaign (its id, else 'name:' and its name), ad group and ad ('' for none).
-- A later upload of a key replaces its row: networks restate their spend for days back.
CREATE TABLE cost_rows (
    project_id    TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    day           TEXT NOT NULL,
    network       TEXT NOT NULL,
    campaign_key  TEXT NOT NULL,
    adgroup_id    TEXT NOT NULL,
    ad_id         TEXT NOT NULL,
    campaign_id   TEXT NOT NULL,
    campaign_name TEXT NOT NULL,
    spend_micros  INTEGER NOT NULL,
    currency      TEXT NOT NULL,
    impressions   INTEGER,
    clicks        INTEGER,
    source        TEXT NOT NULL,
    updated_at    INTEGER NOT NULL,
    PRIMARY KEY (project_id, day, network, campaign_key, adgroup_id, ad_id)
) WITHOUT ROWID;
