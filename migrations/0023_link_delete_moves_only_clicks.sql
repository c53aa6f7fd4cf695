-- A deleted link's rollups lost the installs attributed to it, with their events and money, when
-- the link was deleted in a later transaction than the one that counted them (as it always is
-- through the admin API): the trigger of 0017 deleted the link's rows, and the ON DELETE SET NULL
-- of installs.link_id moved the same installs away from the link a second time, through
-- rollup_install_update. Now the trigger moves the link's clicks to '' as deltas, like every other
-- change, and leaves the rows (their counts end at zero) for the moves to balance: nothing is
-- taken away twice. PostgreSQL's trigger (postgres/0003) moves the installs first and was right.

DROP TRIGGER rollup_link_delete;
CREATE TRIGGER rollup_link_delete AFTER DELETE ON links BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT project_id, hour * 3600000, OLD.id, 0, -clicks, -bot_clicks, 0, 0, 0, 0, 0, 0, 0, 0, 0 FROM rollup_link_hours
    WHERE project_id = OLD.project_id AND link_id = OLD.id AND (clicks <> 0 OR bot_clicks <> 0) AND NOT rollup_count(project_id, hour * 3600000, OLD.id, 0, -clicks, -bot_clicks, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT project_id, hour * 3600000, '', 0, clicks, bot_clicks, 0, 0, 0, 0, 0, 0, 0, 0, 0 FROM rollup_link_hours
    WHERE project_id = OLD.project_id AND link_id = OLD.id AND (clicks <> 0 OR bot_clicks <> 0) AND NOT rollup_count(project_id, hour * 3600000, '', 0, clicks, bot_clicks, 0, 0, 0, 0, 0, 0, 0, 0, 0);
END;
