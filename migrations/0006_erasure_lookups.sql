-- Erasure found its rows by reading whole tables of the project on the single writer: erasing an
-- install read every click (for the ones it claimed), erasing a user every event.

-- Only claimed clicks carry an install.
CREATE INDEX clicks_by_install ON clicks(install_id) WHERE install_id IS NOT NULL;

-- The installs that hold events of a user. An index on events.user_id would take one more random
-- page write per event (capture-event lost a fifth of its rate with 100,000 users). A pair here is
-- written once; later events of the pair only look it up. No foreign key: it would look the install
-- up on every event as well, and erasure deletes an install's pairs itself.
CREATE TABLE user_event_installs (
    project_id  TEXT NOT NULL,
    user_id     TEXT NOT NULL,
    install_id  TEXT NOT NULL,
    PRIMARY KEY (project_id, user_id, install_id)
) WITHOUT ROWID;
CREATE INDEX user_event_installs_by_install ON user_event_installs(install_id);

CREATE TRIGGER events_note_user_install AFTER INSERT ON events WHEN NEW.user_id IS NOT NULL
BEGIN
    INSERT OR IGNORE INTO user_event_installs (project_id, user_id, install_id) VALUES (NEW.project_id, NEW.user_id, NEW.install_id);
END;

INSERT OR IGNORE INTO user_event_installs (project_id, user_id, install_id)
    SELECT DISTINCT project_id, user_id, install_id FROM events WHERE user_id IS NOT NULL;
