//! Accounts and sessions, written once for both backends over [`Conn`].
//! Each backend opens the transaction and calls these.

use crate::StoreError;
use crate::conn::{Conn, Decodes, Param};
use crate::rows::{AccountKeyRow, AccountRow, SessionRow};
use crate::{
    Account, AccountClaim, AccountKey, ClaimOutcome, Millis, NewSession, PlayerRow, Session,
};

/// The guest's row, for a claim that overtakes the journal's `Player`
/// write; that write, applied later, then changes nothing.
const INSERT_PLAYER_IF_MISSING: &str = "\
    INSERT INTO players (id, name, token_hash, created_at) VALUES ($1, $2, $3, $4) \
    ON CONFLICT (id) DO NOTHING";

const ACCOUNT_OF_PLAYER: &str = "SELECT player_id FROM accounts WHERE player_id = $1";

const ACCOUNT_NAMED: &str = "SELECT player_id FROM accounts WHERE name_key = $1";

const INSERT_ACCOUNT: &str = "\
    INSERT INTO accounts (player_id, name_key, password_hash, created_at, updated_at) \
    VALUES ($1, $2, $3, $4, $4)";

const ACCOUNT_KEYS: &str = "\
    SELECT a.player_id, p.name, a.name_key FROM accounts a JOIN players p ON p.id = a.player_id \
    WHERE a.deleted_at IS NULL ORDER BY a.created_at, a.player_id";

/// The names of deleted accounts, held through their cooling-off.
const HELD_KEYS: &str = "SELECT name_key FROM accounts WHERE deleted_at IS NOT NULL";

/// The deleted accounts whose cooling-off is over: their names are free.
const RELEASE_HELD: &str = "\
    DELETE FROM accounts WHERE deleted_at IS NOT NULL AND deleted_at < $1 RETURNING name_key";

/// What a deleted player is called wherever they appear.
pub const DELETED_PLAYER: &str = "deleted player";

/// An account's deletion, statement by statement, in one transaction: the
/// account keeps only its name key, for the cooling-off; its sessions,
/// mutes, blocks, roles, ratings, puzzle answers and accuracy rows go (reports it made or
/// drew stay, for the moderators); its seats and its player row take
/// the deleted player's name, and the player row a token hash no token
/// has (not hex). Each statement is bound with just the parameters it
/// names: PostgreSQL's connections cache a prepared statement by its text,
/// and the same text prepared elsewhere with fewer (`DROP_ROLE`, a purged
/// guest's blocks) would refuse more.
const DELETE_ACCOUNT: [&str; 10] = [
    "DELETE FROM sessions WHERE player_id = $1",
    "DELETE FROM player_mutes WHERE player_id = $1",
    "DELETE FROM player_blocks WHERE player_id = $1",
    // Made as a guest, before the name was claimed.
    "DELETE FROM guest_blocks WHERE player_id = $1",
    "DELETE FROM player_roles WHERE player_id = $1",
    "DELETE FROM ratings WHERE player_id = $1",
    "DELETE FROM rating_history WHERE player_id = $1",
    "DELETE FROM seat_accuracy WHERE player_id = $1",
    "DELETE FROM puzzle_attempts WHERE player_id = $1",
    "DELETE FROM puzzle_ratings WHERE player_id = $1",
];
/// The deleted player's name on its seats and its player row.
const NAME_DELETED: [&str; 2] = [
    "UPDATE match_seats SET name = $2 WHERE player_id = $1",
    "UPDATE players SET name = $2, token_hash = 'deleted:' || id WHERE id = $1",
];

const MARK_DELETED: &str = "\
    UPDATE accounts SET password_hash = '', deleted_at = $2, updated_at = $2 \
    WHERE player_id = $1 AND deleted_at IS NULL RETURNING name_key";

const SET_ACCOUNT_KEY: &str = "UPDATE accounts SET name_key = $2 WHERE player_id = $1";

/// What a key being moved holds for a moment: unique (a player id) and no
/// account's key, as those never hold a control character.
const KEY_IN_TRANSIT: char = '\u{2}';

const RENAME_PLAYER: &str = "UPDATE players SET name = $2 WHERE id = $1";

const INSERT_SESSION: &str = "\
    INSERT INTO sessions (token_hash, player_id, created_at, expires_at) VALUES ($1, $2, $3, $4)";

const ACCOUNT_BY_NAME: &str = "\
    SELECT p.id, p.name, a.password_hash FROM accounts a JOIN players p ON p.id = a.player_id \
    WHERE a.name_key = $1";

const ACCOUNT_BY_PLAYER: &str = "\
    SELECT p.id, p.name, a.password_hash FROM accounts a JOIN players p ON p.id = a.player_id \
    WHERE a.player_id = $1";

const SESSION_BY_TOKEN_HASH: &str = "\
    SELECT p.id, p.name, s.expires_at, s.revoked_at FROM sessions s \
    JOIN players p ON p.id = s.player_id WHERE s.token_hash = $1";

const REVOKE_SESSION: &str =
    "UPDATE sessions SET revoked_at = COALESCE(revoked_at, $2) WHERE token_hash = $1";

/// An account's live sessions, the newest first.
const LIVE_SESSIONS_OF: &str = "\
    SELECT token_hash, player_id FROM sessions \
    WHERE player_id = $1 AND revoked_at IS NULL AND expires_at > $2 \
    ORDER BY created_at DESC, token_hash DESC";

const REVOKE_SESSIONS_OF: &str =
    "UPDATE sessions SET revoked_at = COALESCE(revoked_at, $2) WHERE player_id = $1";

const SET_PASSWORD: &str =
    "UPDATE accounts SET password_hash = $2, updated_at = $3 WHERE player_id = $1";

fn text(value: &str) -> Param<'_> {
    Param::Text(Some(value))
}

fn int(value: i64) -> Param<'static> {
    Param::Int(Some(value))
}

async fn exists<C: Conn>(
    conn: &mut C,
    statement: &'static str,
    key: &str,
) -> Result<bool, StoreError> {
    Ok(!conn.fetch_all(statement, &[text(key)]).await?.is_empty())
}

pub(crate) async fn claim<C: Conn>(
    conn: &mut C,
    claim: &AccountClaim,
) -> Result<ClaimOutcome, StoreError> {
    let (player, session) = (&claim.player, &claim.session);
    let at = session.created_at;
    let guest = [text(&player.id), text(&player.name), text(&claim.guest_token_hash), int(at)];
    conn.execute(INSERT_PLAYER_IF_MISSING, &guest).await?;
    if exists(conn, ACCOUNT_OF_PLAYER, &player.id).await? {
        return Ok(ClaimOutcome::AlreadyClaimed);
    }
    if exists(conn, ACCOUNT_NAMED, &claim.name_key).await? {
        return Ok(ClaimOutcome::NameTaken);
    }
    let account = [text(&player.id), text(&claim.name_key), text(&claim.password_hash), int(at)];
    match conn.execute(INSERT_ACCOUNT, &account).await {
        // Another claim of the same name committed since the check above.
        Err(StoreError::Database(sqlx::Error::Database(error))) if error.is_unique_violation() => {
            return Ok(ClaimOutcome::NameTaken);
        }
        other => other?,
    }
    conn.execute(RENAME_PLAYER, &[text(&player.id), text(&player.name)]).await?;
    insert_session(conn, session).await?;
    Ok(ClaimOutcome::Claimed)
}

async fn account<C: Conn>(
    conn: &mut C,
    statement: &'static str,
    key: &str,
) -> Result<Option<Account>, StoreError> {
    let rows = conn.fetch_all(statement, &[text(key)]).await?;
    let Some(row) = rows.first() else { return Ok(None) };
    let row: AccountRow = row.decode()?;
    Ok(Some(Account {
        player: PlayerRow { id: row.id, name: row.name },
        password_hash: row.password_hash,
    }))
}

pub(crate) async fn account_by_name<C: Conn>(
    conn: &mut C,
    name_key: &str,
) -> Result<Option<Account>, StoreError> {
    account(conn, ACCOUNT_BY_NAME, name_key).await
}

pub(crate) async fn account_by_player<C: Conn>(
    conn: &mut C,
    player_id: &str,
) -> Result<Option<Account>, StoreError> {
    account(conn, ACCOUNT_BY_PLAYER, player_id).await
}

pub(crate) async fn account_keys<C: Conn>(conn: &mut C) -> Result<Vec<AccountKey>, StoreError> {
    let rows = conn.fetch_all(ACCOUNT_KEYS, &[]).await?;
    rows.iter()
        .map(|row| {
            let row: AccountKeyRow = row.decode()?;
            Ok(AccountKey { player_id: row.player_id, name: row.name, name_key: row.name_key })
        })
        .collect()
}

/// Every key moves aside first, then to its place, so that a key passing
/// from one account to another never meets itself in the unique index.
pub(crate) async fn set_account_keys<C: Conn>(
    conn: &mut C,
    keys: &[AccountKey],
) -> Result<(), StoreError> {
    for account in keys {
        let aside = format!("{KEY_IN_TRANSIT}{}", account.player_id);
        conn.execute(SET_ACCOUNT_KEY, &[text(&account.player_id), text(&aside)]).await?;
    }
    for account in keys {
        conn.execute(SET_ACCOUNT_KEY, &[text(&account.player_id), text(&account.name_key)]).await?;
    }
    Ok(())
}

pub(crate) async fn insert_session<C: Conn>(
    conn: &mut C,
    session: &NewSession,
) -> Result<(), StoreError> {
    let params = [
        text(&session.token_hash),
        text(&session.player_id),
        int(session.created_at),
        int(session.expires_at),
    ];
    conn.execute(INSERT_SESSION, &params).await
}

pub(crate) async fn session<C: Conn>(
    conn: &mut C,
    token_hash: &str,
) -> Result<Option<Session>, StoreError> {
    let rows = conn.fetch_all(SESSION_BY_TOKEN_HASH, &[text(token_hash)]).await?;
    let Some(row) = rows.first() else { return Ok(None) };
    let row: SessionRow = row.decode()?;
    Ok(Some(Session {
        player: PlayerRow { id: row.id, name: row.name },
        expires_at: row.expires_at,
        revoked_at: row.revoked_at,
    }))
}

pub(crate) async fn revoke_session<C: Conn>(
    conn: &mut C,
    token_hash: &str,
    at: Millis,
) -> Result<(), StoreError> {
    conn.execute(REVOKE_SESSION, &[text(token_hash), int(at)]).await
}

pub(crate) async fn revoke_sessions_beyond<C: Conn>(
    conn: &mut C,
    player_id: &str,
    keep: u32,
    now: Millis,
) -> Result<Vec<String>, StoreError> {
    let rows = conn.fetch_all(LIVE_SESSIONS_OF, &[text(player_id), int(now)]).await?;
    let live: Vec<(String, String)> = rows.iter().map(Decodes::decode).collect::<Result<_, _>>()?;
    let mut revoked = Vec::new();
    for (token_hash, _) in live.into_iter().skip(keep as usize) {
        conn.execute(REVOKE_SESSION, &[text(&token_hash), int(now)]).await?;
        revoked.push(token_hash);
    }
    Ok(revoked)
}

/// Deletes `player_id`'s account at `at` (see [`DELETE_ACCOUNT`]): false if
/// it had none, or it was deleted already.
pub(crate) async fn delete_account<C: Conn>(
    conn: &mut C,
    player_id: &str,
    at: crate::Millis,
) -> Result<bool, StoreError> {
    if conn.fetch_all(MARK_DELETED, &[text(player_id), int(at)]).await?.is_empty() {
        return Ok(false);
    }
    for statement in DELETE_ACCOUNT {
        conn.execute(statement, &[text(player_id)]).await?;
    }
    for statement in NAME_DELETED {
        conn.execute(statement, &[text(player_id), text(DELETED_PLAYER)]).await?;
    }
    Ok(true)
}

/// The name keys of deleted accounts still in their cooling-off.
pub(crate) async fn held_names<C: Conn>(conn: &mut C) -> Result<Vec<String>, StoreError> {
    let rows = conn.fetch_all(HELD_KEYS, &[]).await?;
    rows.iter().map(|row| Decodes::<(String,)>::decode(row).map(|(key,)| key)).collect()
}

/// Frees the names of accounts deleted before `before`: their keys.
pub(crate) async fn release_held_names<C: Conn>(
    conn: &mut C,
    before: crate::Millis,
) -> Result<Vec<String>, StoreError> {
    let rows = conn.fetch_all(RELEASE_HELD, &[int(before)]).await?;
    rows.iter().map(|row| Decodes::<(String,)>::decode(row).map(|(key,)| key)).collect()
}

pub(crate) async fn change_password<C: Conn>(
    conn: &mut C,
    password_hash: &str,
    session: &NewSession,
) -> Result<(), StoreError> {
    let (player_id, at) = (session.player_id.as_str(), session.created_at);
    conn.execute(SET_PASSWORD, &[text(player_id), text(password_hash), int(at)]).await?;
    conn.execute(REVOKE_SESSIONS_OF, &[text(player_id), int(at)]).await?;
    insert_session(conn, session).await
}
