-- Moderation: the roles the operator grants, and the log of every grant
-- and moderator action.
--
-- A role belongs to an account (a claimed name), never to a guest, and is
-- shown to no other player.
CREATE TABLE player_roles (
    player_id  TEXT PRIMARY KEY REFERENCES accounts (player_id),
    role       TEXT NOT NULL CHECK (role IN ('moderator', 'admin')),
    granted_at BIGINT NOT NULL
);

-- Append-only: the code only inserts, and the triggers below refuse any
-- change or deletion, so the log is what happened, whoever holds the API.
-- `actor` is a player id, or 'operator' for the server's admin subcommand;
-- `target` the player acted on.
CREATE TABLE moderation_log (
    id     BIGSERIAL PRIMARY KEY,
    at     BIGINT NOT NULL,
    actor  TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT,
    reason TEXT NOT NULL DEFAULT ''
);
CREATE INDEX moderation_log_target ON moderation_log (target, id);

CREATE FUNCTION moderation_log_is_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'moderation_log is append-only';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER moderation_log_append_only
    BEFORE UPDATE OR DELETE ON moderation_log
    FOR EACH ROW EXECUTE FUNCTION moderation_log_is_append_only();
