-- Installs reported in a client's test mode (a WarpLink wl_test_ key, Linkrunner's `debug`) are
-- stored marked (`is_test`, set once when the install is stored) and kept out of what the
-- dashboard and the stats count: the triggers that count an install, its events, payments and
-- SKAN values step aside for it (docs/dashboard.md, "Test traffic"). They are matched like any
-- install, shown on the installs page behind its "Test" switch, and never sent out.

ALTER TABLE installs ADD COLUMN is_test INTEGER NOT NULL DEFAULT 0;

DROP TRIGGER rollup_install_insert;
DROP TRIGGER rollup_install_update;
DROP TRIGGER rollup_install_delete;
DROP TRIGGER rollup_install_signup;
DROP TRIGGER tally_install_insert;
DROP TRIGGER tally_install_update;
DROP TRIGGER tally_install_delete;
DROP TRIGGER tally_skan_insert;
DROP TRIGGER tally_skan_update;
DROP TRIGGER tally_skan_delete;
DROP TRIGGER rollup_event_insert;
DROP TRIGGER rollup_event_delete;
DROP TRIGGER rollup_payment_insert;
DROP TRIGGER rollup_payment_removed;
DROP TRIGGER rollup_payment_delete;
DROP TRIGGER rollup_first_payment;
DROP TRIGGER rollup_last_payment_removed;
DROP TRIGGER rollup_last_payment_deleted;

CREATE TRIGGER rollup_install_insert AFTER INSERT ON installs WHEN NOT NEW.is_test BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT NEW.project_id, NEW.created_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 1, 0, 0, 1, (NEW.attributed <> 0), (NEW.attributed <> 0 AND NEW.matched_factors = '["apple_ads"]'), (NEW.attributed <> 0 AND NEW.match_type = 'deterministic'), (NEW.attributed <> 0 AND NEW.match_type = 'probabilistic'), (NEW.attributed = 0), 0, NEW.signed_up, EXISTS (SELECT 1 FROM payments p WHERE p.install_id = NEW.id AND p.removed_at IS NULL)
    WHERE NOT rollup_count(NEW.project_id, NEW.created_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 1, 0, 0, 1, (NEW.attributed <> 0), (NEW.attributed <> 0 AND NEW.matched_factors = '["apple_ads"]'), (NEW.attributed <> 0 AND NEW.match_type = 'deterministic'), (NEW.attributed <> 0 AND NEW.match_type = 'probabilistic'), (NEW.attributed = 0), 0, NEW.signed_up, EXISTS (SELECT 1 FROM payments p WHERE p.install_id = NEW.id AND p.removed_at IS NULL));
END;

CREATE TRIGGER rollup_install_update AFTER UPDATE OF attributed, link_id, match_type, matched_factors ON installs
WHEN (OLD.attributed IS NOT NEW.attributed OR OLD.link_id IS NOT NEW.link_id OR OLD.match_type IS NOT NEW.match_type
    OR OLD.matched_factors IS NOT NEW.matched_factors) AND NOT NEW.is_test BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT OLD.project_id, OLD.created_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 0, 0, -1, -(OLD.attributed <> 0), -(OLD.attributed <> 0 AND OLD.matched_factors = '["apple_ads"]'), -(OLD.attributed <> 0 AND OLD.match_type = 'deterministic'), -(OLD.attributed <> 0 AND OLD.match_type = 'probabilistic'), -(OLD.attributed = 0), 0, -OLD.signed_up, -EXISTS (SELECT 1 FROM payments p WHERE p.install_id = OLD.id AND p.removed_at IS NULL)
    WHERE NOT rollup_count(OLD.project_id, OLD.created_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 0, 0, -1, -(OLD.attributed <> 0), -(OLD.attributed <> 0 AND OLD.matched_factors = '["apple_ads"]'), -(OLD.attributed <> 0 AND OLD.match_type = 'deterministic'), -(OLD.attributed <> 0 AND OLD.match_type = 'probabilistic'), -(OLD.attributed = 0), 0, -OLD.signed_up, -EXISTS (SELECT 1 FROM payments p WHERE p.install_id = OLD.id AND p.removed_at IS NULL));
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT NEW.project_id, NEW.created_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 1, 0, 0, 1, (NEW.attributed <> 0), (NEW.attributed <> 0 AND NEW.matched_factors = '["apple_ads"]'), (NEW.attributed <> 0 AND NEW.match_type = 'deterministic'), (NEW.attributed <> 0 AND NEW.match_type = 'probabilistic'), (NEW.attributed = 0), 0, NEW.signed_up, EXISTS (SELECT 1 FROM payments p WHERE p.install_id = NEW.id AND p.removed_at IS NULL)
    WHERE NOT rollup_count(NEW.project_id, NEW.created_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 1, 0, 0, 1, (NEW.attributed <> 0), (NEW.attributed <> 0 AND NEW.matched_factors = '["apple_ads"]'), (NEW.attributed <> 0 AND NEW.match_type = 'deterministic'), (NEW.attributed <> 0 AND NEW.match_type = 'probabilistic'), (NEW.attributed = 0), 0, NEW.signed_up, EXISTS (SELECT 1 FROM payments p WHERE p.install_id = NEW.id AND p.removed_at IS NULL));
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT e.project_id, e.charted_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0 FROM events e
    WHERE e.install_id = OLD.id AND NOT rollup_count(e.project_id, e.charted_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0);
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT e.project_id, e.charted_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 0, 'event', coalesce(e.currency, ''), -e.revenue, -1 FROM events e
    WHERE e.install_id = OLD.id AND e.revenue IS NOT NULL AND NOT rollup_money(e.project_id, e.charted_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 0, 'event', coalesce(e.currency, ''), -e.revenue, -1);
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT p.project_id, p.created_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 0, 'payment', p.currency, -p.amount, -1 FROM payments p
    WHERE p.install_id = OLD.id AND p.removed_at IS NULL AND NOT rollup_money(p.project_id, p.created_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 0, 'payment', p.currency, -p.amount, -1);
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT e.project_id, e.charted_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0 FROM events e
    WHERE e.install_id = NEW.id AND NOT rollup_count(e.project_id, e.charted_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0);
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT e.project_id, e.charted_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 0, 'event', coalesce(e.currency, ''), e.revenue, 1 FROM events e
    WHERE e.install_id = NEW.id AND e.revenue IS NOT NULL AND NOT rollup_money(e.project_id, e.charted_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 0, 'event', coalesce(e.currency, ''), e.revenue, 1);
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT p.project_id, p.created_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 0, 'payment', p.currency, p.amount, 1 FROM payments p
    WHERE p.install_id = NEW.id AND p.removed_at IS NULL AND NOT rollup_money(p.project_id, p.created_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 0, 'payment', p.currency, p.amount, 1);
END;

CREATE TRIGGER rollup_install_delete BEFORE DELETE ON installs WHEN NOT OLD.is_test BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT OLD.project_id, OLD.created_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 0, 0, -1, -(OLD.attributed <> 0), -(OLD.attributed <> 0 AND OLD.matched_factors = '["apple_ads"]'), -(OLD.attributed <> 0 AND OLD.match_type = 'deterministic'), -(OLD.attributed <> 0 AND OLD.match_type = 'probabilistic'), -(OLD.attributed = 0), 0, -OLD.signed_up, -EXISTS (SELECT 1 FROM payments p WHERE p.install_id = OLD.id AND p.removed_at IS NULL)
    WHERE NOT rollup_count(OLD.project_id, OLD.created_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 0, 0, -1, -(OLD.attributed <> 0), -(OLD.attributed <> 0 AND OLD.matched_factors = '["apple_ads"]'), -(OLD.attributed <> 0 AND OLD.match_type = 'deterministic'), -(OLD.attributed <> 0 AND OLD.match_type = 'probabilistic'), -(OLD.attributed = 0), 0, -OLD.signed_up, -EXISTS (SELECT 1 FROM payments p WHERE p.install_id = OLD.id AND p.removed_at IS NULL));
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT e.project_id, e.charted_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0 FROM events e
    WHERE e.install_id = OLD.id AND NOT rollup_count(e.project_id, e.charted_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0);
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT e.project_id, e.charted_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 'event', coalesce(e.currency, ''), -e.revenue, -1 FROM events e
    WHERE e.install_id = OLD.id AND e.revenue IS NOT NULL AND NOT rollup_money(e.project_id, e.charted_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 'event', coalesce(e.currency, ''), -e.revenue, -1);
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT p.project_id, p.created_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 'payment', p.currency, -p.amount, -1 FROM payments p
    WHERE p.install_id = OLD.id AND p.removed_at IS NULL AND NOT rollup_money(p.project_id, p.created_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 'payment', p.currency, -p.amount, -1);
END;

CREATE TRIGGER rollup_install_signup AFTER UPDATE OF signed_up ON installs
WHEN (OLD.signed_up <> NEW.signed_up) AND NOT NEW.is_test BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT NEW.project_id, NEW.created_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, NEW.signed_up - OLD.signed_up, 0
    WHERE NOT rollup_count(NEW.project_id, NEW.created_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, NEW.signed_up - OLD.signed_up, 0);
END;

CREATE TRIGGER tally_install_insert AFTER INSERT ON installs
WHEN (NEW.attributed) AND NOT NEW.is_test BEGIN
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    SELECT NEW.project_id, NEW.created_at, 'confidence', CASE WHEN NEW.confidence >= 0.8 THEN 'high' WHEN NEW.confidence >= 0.6 THEN 'medium' ELSE 'low' END, 1
    WHERE NOT rollup_tally(NEW.project_id, NEW.created_at, 'confidence', CASE WHEN NEW.confidence >= 0.8 THEN 'high' WHEN NEW.confidence >= 0.6 THEN 'medium' ELSE 'low' END, 1);
END;

CREATE TRIGGER tally_install_update AFTER UPDATE OF attributed, confidence ON installs
WHEN (OLD.attributed IS NOT NEW.attributed OR OLD.confidence IS NOT NEW.confidence) AND NOT NEW.is_test BEGIN
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    SELECT OLD.project_id, OLD.created_at, 'confidence', CASE WHEN OLD.confidence >= 0.8 THEN 'high' WHEN OLD.confidence >= 0.6 THEN 'medium' ELSE 'low' END, -1
    WHERE OLD.attributed AND NOT rollup_tally(OLD.project_id, OLD.created_at, 'confidence', CASE WHEN OLD.confidence >= 0.8 THEN 'high' WHEN OLD.confidence >= 0.6 THEN 'medium' ELSE 'low' END, -1);
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    SELECT NEW.project_id, NEW.created_at, 'confidence', CASE WHEN NEW.confidence >= 0.8 THEN 'high' WHEN NEW.confidence >= 0.6 THEN 'medium' ELSE 'low' END, 1
    WHERE NEW.attributed AND NOT rollup_tally(NEW.project_id, NEW.created_at, 'confidence', CASE WHEN NEW.confidence >= 0.8 THEN 'high' WHEN NEW.confidence >= 0.6 THEN 'medium' ELSE 'low' END, 1);
END;

CREATE TRIGGER tally_install_delete BEFORE DELETE ON installs WHEN NOT OLD.is_test BEGIN
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    SELECT OLD.project_id, OLD.created_at, 'confidence', CASE WHEN OLD.confidence >= 0.8 THEN 'high' WHEN OLD.confidence >= 0.6 THEN 'medium' ELSE 'low' END, -1
    WHERE OLD.attributed AND NOT rollup_tally(OLD.project_id, OLD.created_at, 'confidence', CASE WHEN OLD.confidence >= 0.8 THEN 'high' WHEN OLD.confidence >= 0.6 THEN 'medium' ELSE 'low' END, -1);
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    SELECT OLD.project_id, OLD.created_at, 'skan' || s.window, coalesce(CAST(s.fine AS TEXT), s.coarse), -1 FROM skan_state s
    WHERE s.install_id = OLD.id AND coalesce(s.fine, s.coarse) IS NOT NULL
        AND NOT rollup_tally(OLD.project_id, OLD.created_at, 'skan' || s.window, coalesce(CAST(s.fine AS TEXT), s.coarse), -1);
END;

CREATE TRIGGER tally_skan_insert AFTER INSERT ON skan_state
WHEN (coalesce(NEW.fine, NEW.coarse) IS NOT NULL) AND NOT EXISTS (SELECT 1 FROM installs WHERE id = NEW.install_id AND is_test) BEGIN
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    SELECT i.project_id, i.created_at, 'skan' || NEW.window, coalesce(CAST(NEW.fine AS TEXT), NEW.coarse), 1 FROM installs i
    WHERE i.id = NEW.install_id AND NOT rollup_tally(i.project_id, i.created_at, 'skan' || NEW.window, coalesce(CAST(NEW.fine AS TEXT), NEW.coarse), 1);
END;

CREATE TRIGGER tally_skan_update AFTER UPDATE OF fine, coarse ON skan_state
WHEN (OLD.fine IS NOT NEW.fine OR OLD.coarse IS NOT NEW.coarse) AND NOT EXISTS (SELECT 1 FROM installs WHERE id = NEW.install_id AND is_test) BEGIN
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    SELECT i.project_id, i.created_at, 'skan' || OLD.window, coalesce(CAST(OLD.fine AS TEXT), OLD.coarse), -1 FROM installs i
    WHERE i.id = OLD.install_id AND coalesce(OLD.fine, OLD.coarse) IS NOT NULL
        AND NOT rollup_tally(i.project_id, i.created_at, 'skan' || OLD.window, coalesce(CAST(OLD.fine AS TEXT), OLD.coarse), -1);
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    SELECT i.project_id, i.created_at, 'skan' || NEW.window, coalesce(CAST(NEW.fine AS TEXT), NEW.coarse), 1 FROM installs i
    WHERE i.id = NEW.install_id AND coalesce(NEW.fine, NEW.coarse) IS NOT NULL
        AND NOT rollup_tally(i.project_id, i.created_at, 'skan' || NEW.window, coalesce(CAST(NEW.fine AS TEXT), NEW.coarse), 1);
END;

CREATE TRIGGER tally_skan_delete AFTER DELETE ON skan_state
WHEN (coalesce(OLD.fine, OLD.coarse) IS NOT NULL) AND NOT EXISTS (SELECT 1 FROM installs WHERE id = OLD.install_id AND is_test) BEGIN
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    SELECT i.project_id, i.created_at, 'skan' || OLD.window, coalesce(CAST(OLD.fine AS TEXT), OLD.coarse), -1 FROM installs i
    WHERE i.id = OLD.install_id AND NOT rollup_tally(i.project_id, i.created_at, 'skan' || OLD.window, coalesce(CAST(OLD.fine AS TEXT), OLD.coarse), -1);
END;

CREATE TRIGGER rollup_event_insert AFTER INSERT ON events
WHEN (NOT rollup_counted_by_caller()) AND NOT EXISTS (SELECT 1 FROM installs WHERE id = NEW.install_id AND is_test) BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT NEW.project_id, coalesce(NEW.charted_at, NEW.received_at), coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0
    WHERE NOT rollup_count(NEW.project_id, coalesce(NEW.charted_at, NEW.received_at), coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0);
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT NEW.project_id, coalesce(NEW.charted_at, NEW.received_at), coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 1, 'event', coalesce(NEW.currency, ''), NEW.revenue, 1
    WHERE NEW.revenue IS NOT NULL AND NOT rollup_money(NEW.project_id, coalesce(NEW.charted_at, NEW.received_at), coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 1, 'event', coalesce(NEW.currency, ''), NEW.revenue, 1);
END;

CREATE TRIGGER rollup_event_delete AFTER DELETE ON events
WHEN (EXISTS (SELECT 1 FROM installs WHERE id = OLD.install_id)) AND NOT EXISTS (SELECT 1 FROM installs WHERE id = OLD.install_id AND is_test) BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT OLD.project_id, coalesce(OLD.charted_at, OLD.received_at), coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = OLD.install_id), ''), 1, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0
    WHERE NOT rollup_count(OLD.project_id, coalesce(OLD.charted_at, OLD.received_at), coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = OLD.install_id), ''), 1, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0);
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT OLD.project_id, coalesce(OLD.charted_at, OLD.received_at), coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = OLD.install_id), ''), 1, 'event', coalesce(OLD.currency, ''), -OLD.revenue, -1
    WHERE OLD.revenue IS NOT NULL AND NOT rollup_money(OLD.project_id, coalesce(OLD.charted_at, OLD.received_at), coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = OLD.install_id), ''), 1, 'event', coalesce(OLD.currency, ''), -OLD.revenue, -1);
END;

CREATE TRIGGER rollup_payment_insert AFTER INSERT ON payments
WHEN (NEW.removed_at IS NULL) AND NOT EXISTS (SELECT 1 FROM installs WHERE id = NEW.install_id AND is_test) BEGIN
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT NEW.project_id, NEW.created_at, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 1, 'payment', NEW.currency, NEW.amount, 1
    WHERE NOT rollup_money(NEW.project_id, NEW.created_at, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 1, 'payment', NEW.currency, NEW.amount, 1);
END;

CREATE TRIGGER rollup_payment_removed AFTER UPDATE OF removed_at ON payments
WHEN (OLD.removed_at IS NULL AND NEW.removed_at IS NOT NULL) AND NOT EXISTS (SELECT 1 FROM installs WHERE id = NEW.install_id AND is_test) BEGIN
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT NEW.project_id, NEW.created_at, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 1, 'payment', NEW.currency, -NEW.amount, -1
    WHERE NOT rollup_money(NEW.project_id, NEW.created_at, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 1, 'payment', NEW.currency, -NEW.amount, -1);
END;

CREATE TRIGGER rollup_payment_delete AFTER DELETE ON payments
WHEN (OLD.removed_at IS NULL AND EXISTS (SELECT 1 FROM installs WHERE id = OLD.install_id)) AND NOT EXISTS (SELECT 1 FROM installs WHERE id = OLD.install_id AND is_test) BEGIN
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT OLD.project_id, OLD.created_at, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = OLD.install_id), ''), 1, 'payment', OLD.currency, -OLD.amount, -1
    WHERE NOT rollup_money(OLD.project_id, OLD.created_at, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = OLD.install_id), ''), 1, 'payment', OLD.currency, -OLD.amount, -1);
END;

CREATE TRIGGER rollup_first_payment AFTER INSERT ON payments
WHEN (NEW.removed_at IS NULL AND (SELECT count(*) FROM payments WHERE install_id = NEW.install_id AND removed_at IS NULL) = 1) AND NOT EXISTS (SELECT 1 FROM installs WHERE id = NEW.install_id AND is_test) BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT i.project_id, i.created_at, CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 FROM installs i
    WHERE i.id = NEW.install_id AND NOT rollup_count(i.project_id, i.created_at, CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1);
END;

CREATE TRIGGER rollup_last_payment_removed AFTER UPDATE OF removed_at ON payments
WHEN (OLD.removed_at IS NULL AND NEW.removed_at IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM payments WHERE install_id = NEW.install_id AND removed_at IS NULL)) AND NOT EXISTS (SELECT 1 FROM installs WHERE id = NEW.install_id AND is_test) BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT i.project_id, i.created_at, CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1 FROM installs i
    WHERE i.id = NEW.install_id AND NOT rollup_count(i.project_id, i.created_at, CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1);
END;

CREATE TRIGGER rollup_last_payment_deleted AFTER DELETE ON payments
WHEN (OLD.removed_at IS NULL AND EXISTS (SELECT 1 FROM installs WHERE id = OLD.install_id)
    AND NOT EXISTS (SELECT 1 FROM payments WHERE install_id = OLD.install_id AND removed_at IS NULL)) AND NOT EXISTS (SELECT 1 FROM installs WHERE id = OLD.install_id AND is_test) BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT i.project_id, i.created_at, CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1 FROM installs i
    WHERE i.id = OLD.install_id AND NOT rollup_count(i.project_id, i.created_at, CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1);
END;
