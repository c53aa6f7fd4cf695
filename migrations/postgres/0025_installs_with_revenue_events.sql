-- As SQLite's 0043: whether an install has an event with revenue is kept on its row, set by its
-- first such event, instead of an index entry for every revenue event.
ALTER TABLE installs ADD COLUMN has_revenue_event BOOLEAN NOT NULL DEFAULT false;
UPDATE installs SET has_revenue_event = true WHERE id IN (SELECT install_id FROM events WHERE revenue IS NOT NULL);
DROP INDEX events_with_revenue;
