-- Deleting or re-keying a parent row makes SQLite find its children through the foreign key's
-- child column. Without an index there it reads the whole child table, on the single writer:
-- deleting a link read every install (~200 ms for 600,000), erasing an install every user.
-- Partial indexes: SQLite looks children up with `column = ?`, which rules out NULL.
CREATE INDEX installs_by_link ON installs(link_id) WHERE link_id IS NOT NULL;
CREATE INDEX users_by_install ON users(install_id) WHERE install_id IS NOT NULL;
CREATE INDEX links_by_template ON links(template_id) WHERE template_id IS NOT NULL;
