-- Apple Ads Campaign Management API (optional, per project): the credentials that fetch the names
-- of campaigns, ad groups and keywords, and the names fetched. Ids work without either.

CREATE TABLE apple_ads_credentials (
    project_id TEXT PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
    client_id TEXT NOT NULL,
    team_id TEXT NOT NULL,
    key_id TEXT NOT NULL,
    org_id TEXT NOT NULL,
    -- The EC P-256 private key (PEM) that signs the OAuth client secret: kept, not hashed, because
    -- every token request is signed with it (as webhook secrets are).
    private_key TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE apple_ads_names (
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('campaign', 'ad_group', 'keyword')),
    id TEXT NOT NULL,
    name TEXT NOT NULL,
    fetched_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, kind, id)
) WITHOUT ROWID;
