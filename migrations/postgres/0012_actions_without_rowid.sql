-- The same number as migrations/sqlite/0012_actions_without_rowid.sql,
-- which stores SQLite's actions in their primary key's B-tree, without a
-- rowid. PostgreSQL has no rowid: its tables are heaps and the primary key
-- is one index beside them, so there is nothing to change here.
SELECT 1;
