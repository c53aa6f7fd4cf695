-- Why each new install was attributed as it was (MatchExplanation, JSON): the deciding tier and
-- the candidate clicks with their scores and outcomes, made in the install's own transaction.
-- NULL for installs stored before this column, and for re-reports (tier 0 found them).
ALTER TABLE installs ADD COLUMN explanation TEXT;
