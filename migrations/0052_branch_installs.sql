-- Branch's SDKs report installs too (docs/sdk-apis.md, "Branch"): `installs.api` may be 'branch'.
-- Widened in place as 0011 widened it for WarpLink (rebuilding `installs` would fire the ON DELETE
-- CASCADE of its child tables); every stored row satisfies the wider CHECK.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
   SET sql = replace(sql, 'CHECK (api IN (''linkrunner'', ''linkforty'', ''warplink''))', 'CHECK (api IN (''linkrunner'', ''linkforty'', ''warplink'', ''branch''))')
 WHERE type = 'table' AND name = 'installs';
PRAGMA writable_schema = RESET;
CREATE TABLE schema_cookie_bump (unused INTEGER);
DROP TABLE schema_cookie_bump;
