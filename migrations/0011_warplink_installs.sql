-- WarpLink's SDKs report installs too (docs/sdk-apis.md, "WarpLink"): `installs.api` may be 'warplink'.
--
-- SQLite cannot alter a CHECK constraint, and rebuilding `installs` would fire the ON DELETE
-- CASCADE of its child tables when the old table is dropped (foreign keys are on while migrations
-- run). Widening a CHECK changes nothing stored — every row satisfies the wider one — which is
-- the case SQLite documents for editing the schema text in place ("Making Other Kinds Of Table
-- Schema Changes", https://www.sqlite.org/lang_altertable.html#otheralter).
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
   SET sql = replace(sql, 'CHECK (api IN (''linkrunner'', ''linkforty''))', 'CHECK (api IN (''linkrunner'', ''linkforty'', ''warplink''))')
 WHERE type = 'table' AND name = 'installs';
-- Reparses the schema on this connection.
PRAGMA writable_schema = RESET;
-- Any DDL moves the schema cookie, so that other connections to the file reparse it too.
CREATE TABLE schema_cookie_bump (unused INTEGER);
DROP TABLE schema_cookie_bump;
