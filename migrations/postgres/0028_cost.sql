-- As SQLite's 0046: ad spend per project, day, network, campaign, ad group and ad.
CREATE TABLE cost_rows (
    project_id    TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    day           TEXT NOT NULL,
    network       TEXT NOT NULL,
    campaign_key  TEXT NOT NULL,
    adgroup_id    TEXT NOT NULL,
    ad_id         TEXT NOT NULL,
    campaign_id   TEXT NOT NULL,
    campaign_name TEXT NOT NULL,
    spend_micros  BIGINT NOT NULL,
    currency      TEXT NOT NULL,
    impressions   BIGINT,
    clicks        BIGINT,
    source        TEXT NOT NULL,
    updated_at    BIGINT NOT NULL,
    PRIMARY KEY (project_id, day, network, campaign_key, adgroup_id, ad_id)
);
