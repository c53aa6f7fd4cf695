-- Apple Ads (AdServices) attribution (docs/outbound.md, "Apple Ads (AdServices) exchange"): the token an install
-- carried until it is exchanged, and Apple's answer. One row per install, deleted with it.

CREATE TABLE apple_ads_claims (
    install_id TEXT PRIMARY KEY REFERENCES installs (id) ON DELETE CASCADE,
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    -- Kept only until Apple answers for good or the token is 24 h old (it is not valid longer).
    token TEXT,
    token_received_at INTEGER NOT NULL,
    -- pending: not answered yet; attributed / not_attributed: Apple's answer; failed: a final
    -- refusal (400, a malformed answer, or no answer before the token expired).
    status TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'attributed', 'not_attributed', 'failed')),
    -- 404s answered so far (Apple: not available yet).
    not_found_answers INTEGER NOT NULL DEFAULT 0,
    -- Apple's answer as it came (JSON), and its fields.
    payload TEXT,
    org_id TEXT,
    campaign_id TEXT,
    ad_group_id TEXT,
    keyword_id TEXT,
    ad_id TEXT,
    conversion_type TEXT,
    claim_type TEXT,
    claimed_at INTEGER,
    country TEXT,
    supply_placement TEXT,
    -- Apple's developer-mode answer (ids 1234567890): kept, never counted as a paid install.
    is_test INTEGER NOT NULL DEFAULT 0,
    -- Whether the claim became the install's attribution (precedence against a link match).
    won INTEGER NOT NULL DEFAULT 0,
    answered_at INTEGER
) WITHOUT ROWID;
-- Reports group a project's claims by campaign, ad group and keyword; deleting a project finds its
-- claims through it too.
CREATE INDEX apple_ads_claims_by_campaign ON apple_ads_claims (project_id, campaign_id, ad_group_id, keyword_id);

-- Tokens still held, by age: retention drops them after 24 h.
CREATE INDEX apple_ads_claims_tokens ON apple_ads_claims (token_received_at) WHERE token IS NOT NULL;

-- Per project: exchange tokens at all (default on).
ALTER TABLE projects ADD COLUMN apple_ads INTEGER NOT NULL DEFAULT 1;
