-- The same change as migrations/postgres/0014_moderation.sql, which says why.

CREATE TABLE player_roles (
    player_id  TEXT PRIMARY KEY REFERENCES accounts (player_id),
    role       TEXT NOT NULL CHECK (role IN ('moderator', 'admin')),
    granted_at BIGINT NOT NULL
);

CREATE TABLE moderation_log (
    id     INTEGER PRIMARY KEY AUTOINCREMENT,
    at     BIGINT NOT NULL,
    actor  TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT,
    reason TEXT NOT NULL DEFAULT ''
);
CREATE INDEX moderation_log_target ON moderation_log (target, id);

CREATE TRIGGER moderation_log_no_update BEFORE UPDATE ON moderation_log
BEGIN
    SELECT RAISE(ABORT, 'moderation_log is append-only');
END;
CREATE TRIGGER moderation_log_no_delete BEFORE DELETE ON moderation_log
BEGIN
    SELECT RAISE(ABORT, 'moderation_log is append-only');
END;
