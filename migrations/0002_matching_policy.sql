-- Per-project overrides of the matching engine's decay steps and candidate penalty (JSON).
ALTER TABLE projects ADD COLUMN matching_policy TEXT;
