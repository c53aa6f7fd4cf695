-- The delta appenders of 0003 rewritten in PL/pgSQL. PostgreSQL 15 plans a LANGUAGE sql function's
-- statements again on every call that it cannot inline (an INSERT never is), so every install,
-- event and payment planned its delta INSERT afresh inside its triggers; PL/pgSQL keeps each
-- statement's plan for the session. Same arguments, same rows (docs/performance.md, "PostgreSQL").

CREATE OR REPLACE FUNCTION rollup_count(p TEXT, at BIGINT, link TEXT, in_hours BOOLEAN, c BIGINT[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF NOT rollup_paused() THEN
        INSERT INTO rollup_count_deltas (project_id, at, link_id, in_hours, counts) VALUES (p, at, link, in_hours, c);
    END IF;
END $$;

CREATE OR REPLACE FUNCTION rollup_add_money(p TEXT, at BIGINT, link TEXT, in_hours BOOLEAN, v_kind TEXT, v_currency TEXT,
                                            v_amount DOUBLE PRECISION, v_entries BIGINT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF NOT rollup_paused() THEN
        INSERT INTO rollup_money_deltas (project_id, at, link_id, in_hours, kind, currency, amount, entries)
        VALUES (p, at, link, in_hours, v_kind, v_currency, v_amount, v_entries);
    END IF;
END $$;

CREATE OR REPLACE FUNCTION rollup_add_tally(p TEXT, at BIGINT, v_dimension TEXT, v_value TEXT, v_installs BIGINT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF NOT rollup_paused() THEN
        INSERT INTO rollup_tally_deltas (project_id, at, dimension, value, installs) VALUES (p, at, v_dimension, v_value, v_installs);
    END IF;
END $$;
