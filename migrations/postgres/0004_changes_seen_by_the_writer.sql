-- The node that commits a change empties its own caches before its caller hears of the commit, as
-- on SQLite (a key revoked through the admin API is refused by the next request to that node):
-- each change also notes its table in the transaction-local setting attributiond.changed, which
-- the node reads just before its COMMIT (PGPool.transaction). Other nodes still hear the NOTIFY.

CREATE OR REPLACE FUNCTION attributiond_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('attributiond_changes', TG_TABLE_NAME);
    PERFORM set_config('attributiond.changed', coalesce(current_setting('attributiond.changed', true), '') || TG_TABLE_NAME || ',', true);
    RETURN NULL;
END;
$$;
