-- The ROAS report's refunds column (docs/cost.md) reads the removed payments of a period's
-- installs: few beside the live ones, so a partial index finds them without reading the rest.
CREATE INDEX payments_removed ON payments (project_id, install_id) WHERE removed_at IS NOT NULL;
