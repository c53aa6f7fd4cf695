-- Events stored through the SDK APIs are counted by EventRepository, which has read the install's
-- link for the insert anyway: the trigger's two install lookups and two function calls per event
-- cost capture-event most of what the rollups cost it (docs/performance.md, "Dashboard and
-- rollups"). The trigger stays for every other writer (signups, tools, a sqlite3 shell) and steps
-- aside while the repository's insert runs (rollup_counted_by_caller(), SQLiteConnection.swift).

DROP TRIGGER rollup_event_insert;
CREATE TRIGGER rollup_event_insert AFTER INSERT ON events WHEN NOT rollup_counted_by_caller() BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT NEW.project_id, NEW.received_at, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0
    WHERE NOT rollup_count(NEW.project_id, NEW.received_at, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0);
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT NEW.project_id, NEW.received_at, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 1, 'event', coalesce(NEW.currency, ''), NEW.revenue, 1
    WHERE NEW.revenue IS NOT NULL AND NOT rollup_money(NEW.project_id, NEW.received_at, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 1, 'event', coalesce(NEW.currency, ''), NEW.revenue, 1);
END;
