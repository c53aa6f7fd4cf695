-- Whether an install has an event with revenue (it pays, as a live payment makes it pay) is kept on
-- its row, as `signed_up` is: the event path reads the row anyway, and sets the flag with the
-- install's first such event, instead of every revenue event writing an entry of
-- `events_with_revenue` for a seek. Erasing a user's events recomputes it, `attributiond rollups
-- rebuild` too (after hand edits).
ALTER TABLE installs ADD COLUMN has_revenue_event INTEGER NOT NULL DEFAULT 0;
UPDATE installs SET has_revenue_event = 1 WHERE id IN (SELECT install_id FROM events WHERE revenue IS NOT NULL);
DROP INDEX events_with_revenue;
