//! Accounts: a guest claims its name with a password and keeps its player
//! id, then logs in from any device, logs out, and changes the password.
//!
//! Passwords are hashed with argon2id on a capped pool of their own
//! ([`crate::passwords`]); only the PHC string is stored, and no password
//! is ever logged. A log-in is a session: a random bearer token, stored as
//! its SHA-256, with an expiry, revoked on log-out and, for every session
//! of the account, when the password changes.
//!
//! Each request that may hash goes through the same steps, cheapest first:
//! the name's and passwords' lengths (from the input alone: `bad_name`,
//! `weak_password`, with no store read and no hash, so a megabyte password
//! costs nothing), a place on the hashing pool (`busy`), the address's
//! count of wrong passwords ([`crate::login_limiter`]: `rate_limited`),
//! then the store and the hash (a password change reads its account
//! before the place, to know the name it counts against). An unknown name costs the same store read
//! and the same hash as a wrong password, so timing does not tell which
//! names exist.

use std::collections::HashSet;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::{Duration, Instant};

use euchre_protocol::{ErrorCode, PlayerInfo};
use euchre_store::{
    Account, AccountClaim, AccountKey, ClaimOutcome, NewSession, PlayerRow, Store, StoreError,
};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::clock::now_ms;
use crate::config::AccountSettings;
use crate::identity::{self, Players};
use crate::login_limiter::{Attempt, LoginLimiter};
use crate::metrics::Metrics;
use crate::passwords::{HashError, Passwords, Slot};
use crate::revocation::Revocation;
pub use crate::text::name_key;

/// The shortest and longest password accepted, in characters.
pub const PASSWORD_CHARS: std::ops::RangeInclusive<usize> = 8..=128;

/// How long a request refused as `busy` is asked to wait: a hash takes
/// tens of milliseconds, so a place is soon free.
pub const BUSY_RETRY: Duration = Duration::from_secs(1);

/// Why an account request was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AccountError {
    #[error("a name must be 1 to 32 visible characters, with no control, invisible or bidi ones")]
    BadName,
    #[error("a password must be 8 to 128 characters")]
    WeakPassword,
    #[error("that name, or one that looks the same, belongs to another account")]
    NameTaken,
    #[error("this player has an account already: log in instead")]
    AlreadyClaimed,
    #[error("no account with that name and password")]
    BadCredentials,
    #[error("too many attempts; try again in {} s", .retry_after.as_secs().max(1))]
    RateLimited { retry_after: Duration },
    #[error("a guest or session token is needed (Authorization: Bearer …)")]
    NoToken,
    #[error("unknown token")]
    BadToken,
    #[error("your session has expired; log in again")]
    SessionExpired,
    #[error("this player is a guest: claim the name first")]
    NotAnAccount,
    #[error("the server is busy checking other passwords; try again in a moment")]
    Busy,
    #[error("the accounts cannot be reached right now; try again")]
    Unavailable,
    /// The message says until when.
    #[error("{0}")]
    Banned(String),
}

impl AccountError {
    /// The stable snake_case code.
    pub fn code(&self) -> &'static str {
        match self {
            AccountError::BadName => "bad_name",
            AccountError::WeakPassword => "weak_password",
            AccountError::NameTaken => "name_taken",
            AccountError::AlreadyClaimed => "already_claimed",
            AccountError::BadCredentials => "bad_credentials",
            AccountError::RateLimited { .. } => "rate_limited",
            AccountError::NoToken => "no_token",
            AccountError::BadToken => "bad_token",
            AccountError::SessionExpired => "session_expired",
            AccountError::NotAnAccount => "not_an_account",
            AccountError::Banned(_) => "banned",
            AccountError::Busy => "busy",
            AccountError::Unavailable => "unavailable",
        }
    }
}

/// A session just started: the token goes to the client once, here.
#[derive(Clone, Debug)]
pub struct Started {
    pub player: PlayerInfo,
    pub token: String,
    pub expires_at: i64,
}

/// The accounts' side of the server.
#[derive(Debug)]
pub struct Accounts {
    store: Arc<dyn Store>,
    players: Arc<Players>,
    session_ms: i64,
    passwords: Passwords,
    limiter: LoginLimiter,
    /// New sessions by account: `sessions_per_hour_per_account`.
    new_sessions: Option<DefaultKeyedRateLimiter<String>>,
    /// Live sessions an account keeps; 0: no cap.
    max_sessions: u32,
}

/// Accounts the new-session limiter holds before it drops those long refilled.
const SESSION_LIMITER_KEYS: usize = 10_000;

impl Accounts {
    pub fn new(
        store: Arc<dyn Store>,
        players: Arc<Players>,
        settings: &AccountSettings,
        metrics: &Metrics,
    ) -> Self {
        let (hashes, busy) =
            (metrics.password_hashes.clone(), metrics.password_hashes_busy.clone());
        Accounts {
            store,
            players,
            session_ms: i64::try_from(settings.session_seconds.saturating_mul(1000))
                .unwrap_or(i64::MAX),
            passwords: Passwords::new(
                settings.concurrent_hashes,
                settings.hashes_per_address,
                hashes,
                busy,
            ),
            limiter: LoginLimiter::new(settings),
            new_sessions: NonZeroU32::new(settings.sessions_per_hour_per_account).map(|per_hour| {
                let burst = NonZeroU32::new(per_hour.get() / 3).unwrap_or(NonZeroU32::MIN);
                RateLimiter::keyed(Quota::per_hour(per_hour).allow_burst(burst))
            }),
            max_sessions: settings.max_sessions_per_account,
        }
    }

    /// The guest holding `token` claims `name` with `password`. A claim
    /// costs a hash, so one that fails (`name_taken`, `already_claimed`)
    /// counts against the address as a wrong password does.
    pub async fn claim(
        &self,
        address: IpAddr,
        token: &str,
        name: &str,
        password: &str,
    ) -> Result<Started, AccountError> {
        let name = identity::parse_name(name).map_err(|_| AccountError::BadName)?;
        check_password(password)?;
        let guest = self.player(token).await?;
        let slot = self.passwords.slot(address, None)?;
        let attempt = self.begin(address, None)?;
        let password_hash = slot.hash(password).await?;
        drop(slot);
        let guest_token_hash = identity::hash(token);
        let (token, session) = self.new_session(&guest.id);
        let claim = AccountClaim {
            player: PlayerRow { id: guest.id.clone(), name: name.clone() },
            guest_token_hash,
            name_key: name_key(&name),
            password_hash,
            session: session.clone(),
        };
        match self.store.claim_account(&claim).await.map_err(unavailable)? {
            ClaimOutcome::Claimed => {}
            ClaimOutcome::NameTaken => return Err(AccountError::NameTaken),
            ClaimOutcome::AlreadyClaimed => return Err(AccountError::AlreadyClaimed),
        }
        self.limiter.succeeded(attempt, Instant::now());
        self.limiter.claimed(address, &name_key(&name), Instant::now());
        // The guest's token has served its turn: only sessions let it in now.
        self.players
            .revoke(Revocation::Claimed { player_id: guest.id.clone(), name_key: name_key(&name) });
        Ok(self.started(PlayerInfo { id: guest.id, name }, token, &session))
    }

    /// Logs in from `address`: a new session for the account named `name`.
    pub async fn log_in(
        &self,
        address: IpAddr,
        name: &str,
        password: &str,
    ) -> Result<Started, AccountError> {
        // A name or password no claim could have made matches no account.
        let key = name_key(&identity::parse_name(name).map_err(|_| AccountError::BadName)?);
        check_password(password)?;
        let slot = self.passwords.slot(address, Some(&key))?;
        let attempt = self.begin(address, Some(&key))?;
        let account = self.account_named(name, &key).await?;
        let player = verify(&slot, account, password).await?;
        self.limiter.succeeded(attempt, Instant::now());
        drop(slot);
        // After the password: a ban is told only to its owner.
        if let Some(until) = self.players.sanctions().banned(&player.id) {
            return Err(AccountError::Banned(identity::banned(until).message));
        }
        // Only a right password gets here: nobody else spends the account's rate.
        self.may_start_session(&player.id)?;
        let (token, session) = self.new_session(&player.id);
        self.store.create_session(&session).await.map_err(unavailable)?;
        self.end_oldest_sessions(&player.id).await?;
        Ok(self.started(player, token, &session))
    }

    /// Whether the account may start one more session now.
    fn may_start_session(&self, player_id: &str) -> Result<(), AccountError> {
        let Some(limiter) = &self.new_sessions else { return Ok(()) };
        if limiter.len() > SESSION_LIMITER_KEYS {
            limiter.retain_recent();
        }
        limiter.check_key(&player_id.to_owned()).map_err(|not_until| {
            let now = governor::clock::Clock::now(&governor::clock::DefaultClock::default());
            AccountError::RateLimited { retry_after: not_until.wait_time_from(now) }
        })
    }

    /// Ends the account's live sessions past `max_sessions_per_account`, the
    /// oldest first: each is revoked as a log-out is, its connections closed
    /// here and, in a cluster, on every node.
    async fn end_oldest_sessions(&self, player_id: &str) -> Result<(), AccountError> {
        if self.max_sessions == 0 {
            return Ok(());
        }
        let ended = self.store.revoke_sessions_beyond(player_id, self.max_sessions, now_ms());
        for token_hash in ended.await.map_err(unavailable)? {
            self.players.revoke(Revocation::Session { token_hash });
        }
        Ok(())
    }

    /// The account a log-in as `name` (whose key is `key`) is for. Where an
    /// older database held two lookalike names, the younger was set aside
    /// (see [`update_name_keys`]) and is found by its own spelling.
    async fn account_named(&self, name: &str, key: &str) -> Result<Option<Account>, AccountError> {
        let account = self.store.account_by_name(key).await.map_err(unavailable)?;
        let spelt_otherwise = account
            .as_ref()
            .is_some_and(|account| legacy_key(&account.player.name) != legacy_key(name));
        if spelt_otherwise {
            let aside = self.store.account_by_name(&set_aside(name)).await.map_err(unavailable)?;
            return Ok(aside.or(account));
        }
        Ok(account)
    }

    /// Ends the session `token` (anything else: nothing to end).
    pub async fn log_out(&self, token: &str) -> Result<(), AccountError> {
        let token_hash = identity::hash(token);
        self.store.revoke_session(&token_hash, now_ms()).await.map_err(unavailable)?;
        self.players.revoke(Revocation::Session { token_hash });
        Ok(())
    }

    /// Changes the password of the account logged in with `token`: every
    /// session ends, and a new one starts for this device.
    pub async fn change_password(
        &self,
        address: IpAddr,
        token: &str,
        current: &str,
        new: &str,
    ) -> Result<Started, AccountError> {
        check_password(current)?;
        check_password(new)?;
        let player = self.player(token).await?;
        let account = self.store.account_by_player(&player.id).await.map_err(unavailable)?;
        let account = account.ok_or(AccountError::NotAnAccount)?;
        let key = name_key(&account.player.name);
        let slot = self.passwords.slot(address, Some(&key))?;
        let attempt = self.begin(address, Some(&key))?;
        let player = verify(&slot, Some(account), current).await?;
        self.limiter.succeeded(attempt, Instant::now());
        let password_hash = slot.hash(new).await?;
        drop(slot);
        let (token, session) = self.new_session(&player.id);
        self.store.change_password(&password_hash, &session).await.map_err(unavailable)?;
        let except = session.token_hash.clone();
        self.players.revoke(Revocation::Password { player_id: player.id.clone(), except });
        Ok(self.started(player, token, &session))
    }

    /// Deletes the account logged in with `token`, given its password (a
    /// stolen session alone cannot): every session of it ends on every
    /// node, its connections close, and its name stays taken for the
    /// cooling-off (`accounts.deleted_name_hold_days`). A wrong password
    /// counts against the address as a wrong log-in does.
    pub async fn delete(
        &self,
        address: IpAddr,
        token: &str,
        password: &str,
    ) -> Result<(), AccountError> {
        check_password(password)?;
        let player = self.player(token).await?;
        let account = self.store.account_by_player(&player.id).await.map_err(unavailable)?;
        let account = account.ok_or(AccountError::NotAnAccount)?;
        let key = name_key(&account.player.name);
        let slot = self.passwords.slot(address, Some(&key))?;
        let attempt = self.begin(address, Some(&key))?;
        let player = verify(&slot, Some(account), password).await?;
        drop(slot);
        self.limiter.succeeded(attempt, Instant::now());
        self.store.delete_account(&player.id, now_ms()).await.map_err(unavailable)?;
        self.players.revoke(Revocation::Deleted { player_id: player.id });
        Ok(())
    }

    /// The account logged in with `token`: a session's token, not a
    /// guest's (`not_an_account`).
    pub async fn account(&self, token: &str) -> Result<PlayerInfo, AccountError> {
        let player = self.player(token).await?;
        let account = self.store.account_by_player(&player.id).await.map_err(unavailable)?;
        account.map(|_| player).ok_or(AccountError::NotAnAccount)
    }

    /// The player holding `token` (a guest's or a session's), or why not.
    pub async fn player(&self, token: &str) -> Result<PlayerInfo, AccountError> {
        match self.players.authenticate(token).await {
            Ok(Some(player)) => Ok(player),
            Ok(None) => Err(AccountError::BadToken),
            Err(refusal) if refusal.code == ErrorCode::SessionExpired.code() => {
                Err(AccountError::SessionExpired)
            }
            Err(refusal) if refusal.code == ErrorCode::Banned.code() => {
                Err(AccountError::Banned(refusal.message))
            }
            Err(_) => Err(AccountError::Unavailable),
        }
    }

    /// An attempt from `address` at the account `key` (none: a claim), or
    /// how long this address must wait.
    fn begin(&self, address: IpAddr, key: Option<&str>) -> Result<Attempt, AccountError> {
        self.limiter
            .begin(address, key, Instant::now())
            .map_err(|retry_after| AccountError::RateLimited { retry_after })
    }

    /// Password hashes started since the server started.
    pub fn hashes_started(&self) -> u64 {
        self.passwords.started()
    }

    fn new_session(&self, player_id: &str) -> (String, NewSession) {
        let token = identity::new_token();
        let now = now_ms();
        let session = NewSession {
            token_hash: identity::hash(&token),
            player_id: player_id.to_owned(),
            created_at: now,
            expires_at: now.saturating_add(self.session_ms),
        };
        (token, session)
    }

    fn started(&self, player: PlayerInfo, token: String, session: &NewSession) -> Started {
        self.players.remember_session(&session.token_hash, &player, session.expires_at);
        Started { player, token, expires_at: session.expires_at }
    }
}

/// Brings every account's stored key to today's [`name_key`] (the
/// confusables data can change with the crate's version, and keys were once
/// the names in lower case) and returns the keys, at start-up. Two accounts
/// whose names are now one: the older keeps the name's key, the younger
/// is set aside under its old key, where only a log-in spelt its own way
/// finds it, and the log names both for the operator.
pub async fn update_name_keys(store: &dyn Store) -> Result<Vec<String>, StoreError> {
    let accounts = store.account_keys().await?;
    let mut taken = HashSet::new();
    let mut changes = Vec::new();
    let mut keys = Vec::with_capacity(accounts.len());
    for account in accounts {
        let mut key = name_key(&account.name);
        if !taken.insert(key.clone()) {
            tracing::warn!(
                player = %account.player_id, name = %account.name,
                "accounts: an older account's name looks the same; this one is set aside"
            );
            key = if account.name_key.starts_with(SET_ASIDE) {
                account.name_key.clone()
            } else {
                format!("{SET_ASIDE}{}", account.name_key)
            };
        }
        if key != account.name_key {
            changes.push(AccountKey { name_key: key.clone(), ..account });
        }
        keys.push(key);
    }
    if !changes.is_empty() {
        tracing::info!(accounts = changes.len(), "accounts: name keys updated");
        store.set_account_keys(&changes).await?;
    }
    Ok(keys)
}

/// Starts the key of an account set aside: no name holds a control
/// character, so no [`name_key`] starts with it.
const SET_ASIDE: char = '\u{1}';

/// The key an account set aside by [`update_name_keys`] has, for `name`.
fn set_aside(name: &str) -> String {
    format!("{SET_ASIDE}{}", legacy_key(name))
}

/// A name as it was compared before [`name_key`]: trimmed, in lower case.
fn legacy_key(name: &str) -> String {
    name.trim().to_lowercase()
}

fn check_password(password: &str) -> Result<(), AccountError> {
    let chars = password.chars().count();
    if PASSWORD_CHARS.contains(&chars) { Ok(()) } else { Err(AccountError::WeakPassword) }
}

fn unavailable(error: euchre_store::StoreError) -> AccountError {
    tracing::error!(%error, "accounts: the store failed");
    AccountError::Unavailable
}

/// The account's player if `password` is its password. Without an
/// account a dummy hash is checked, so both refusals take as long.
async fn verify(
    slot: &Slot<'_>,
    account: Option<Account>,
    password: &str,
) -> Result<PlayerInfo, AccountError> {
    // A deleted account has no hash: checked against the stand-in as an
    // unknown name is, so that the answer takes as long.
    let account = account.filter(|account| !account.password_hash.is_empty());
    let stored = account.as_ref().map(|account| account.password_hash.clone());
    let matches = slot.verify(stored, password).await?;
    match account {
        Some(account) if matches => {
            Ok(PlayerInfo { id: account.player.id, name: account.player.name })
        }
        _ => Err(AccountError::BadCredentials),
    }
}

impl From<HashError> for AccountError {
    fn from(error: HashError) -> AccountError {
        match error {
            HashError::Busy => AccountError::Busy,
            HashError::Failed => AccountError::Unavailable,
        }
    }
}

#[cfg(test)]
mod tests {
    use tokio_util::sync::CancellationToken;

    use super::*;
    use crate::config::Settings;
    use crate::state::AppState;

    const PATIENCE: Duration = Duration::from_secs(10);

    #[test]
    fn names_compare_as_keys() {
        assert_eq!(name_key("  Zoë  ANN "), name_key("zoë ann"));
        assert_eq!(name_key("ÉLODIE"), name_key("élodie"));
    }

    #[test]
    fn passwords_have_a_length() {
        assert_eq!(check_password("short"), Err(AccountError::WeakPassword));
        assert_eq!(check_password(&"x".repeat(129)), Err(AccountError::WeakPassword));
        assert_eq!(check_password("correct horse"), Ok(()));
        // Characters, not bytes.
        assert_eq!(check_password("ééééééé"), Err(AccountError::WeakPassword));
    }

    /// Accounts over a fresh SQLite store, as the server builds them.
    async fn state(change: impl FnOnce(&mut Settings)) -> (AppState, tempfile::TempDir) {
        let data = tempfile::tempdir().expect("a folder");
        let url = format!("sqlite://{}/euchre.db", data.path().display());
        let store: Arc<dyn Store> = Arc::from(euchre_store::connect(&url).await.expect("a store"));
        store.migrate().await.expect("migrated");
        let (recorder, writer) =
            euchre_store::writer::start(store.clone(), data.path().join("journal"), 64)
                .await
                .expect("the writer starts");
        tokio::spawn(writer.run(CancellationToken::new()));
        let mut settings = Settings::default();
        change(&mut settings);
        (AppState::new(settings, CancellationToken::new(), store, recorder), data)
    }

    #[tokio::test]
    async fn names_and_passwords_of_the_wrong_length_are_refused_before_any_hash() {
        let (state, _data) = state(|_| {}).await;
        let accounts = &state.accounts;
        let address = IpAddr::from([127, 0, 0, 1]);
        let megabyte = "x".repeat(1_000_000);
        let long_name = "n".repeat(1_000_000);
        let (guest, token) = state.players.register("Ann").await.expect("a guest");
        assert_eq!(
            accounts.log_in(address, "Ann", &megabyte).await.err(),
            Some(AccountError::WeakPassword)
        );
        assert_eq!(
            accounts.log_in(address, &long_name, "correct horse").await.err(),
            Some(AccountError::BadName)
        );
        assert_eq!(
            accounts.log_in(address, "Ann", "short").await.err(),
            Some(AccountError::WeakPassword)
        );
        assert_eq!(
            accounts.claim(address, &token, "Ann", &megabyte).await.err(),
            Some(AccountError::WeakPassword)
        );
        assert_eq!(accounts.hashes_started(), 0, "no hash for any of them");

        let started =
            accounts.claim(address, &token, "Ann", "correct horse").await.expect("claimed");
        assert_eq!(started.player.id, guest.id);
        let hashes = accounts.hashes_started();
        assert_eq!(hashes, 1);
        for (current, new) in [(&*megabyte, "new horse!"), ("correct horse", &*megabyte)] {
            let refused = accounts.change_password(address, &started.token, current, new).await;
            assert_eq!(refused.err(), Some(AccountError::WeakPassword));
        }
        assert_eq!(accounts.hashes_started(), hashes, "a password change hashed nothing either");
        // And none of it counted as a wrong password.
        for _ in 0..10 {
            accounts.log_in(address, "ann", "correct horse").await.expect("logged in");
        }
    }

    #[tokio::test]
    async fn with_every_hashing_thread_busy_a_log_in_is_answered_503_busy() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let (state, _data) = state(|settings| settings.accounts.concurrent_hashes = 2).await;
        let held = state.accounts.passwords.hold_all();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("an address");
        let app = crate::router(state.clone())
            .into_make_service_with_connect_info::<std::net::SocketAddr>();
        let server = tokio::spawn(async move { axum::serve(listener, app).await });

        let body = r#"{"name":"Ann","password":"correct horse"}"#;
        let request = format!(
            "POST /api/sessions HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let mut stream = tokio::net::TcpStream::connect(address).await.expect("connect");
        stream.write_all(request.as_bytes()).await.expect("sent");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).await.expect("an answer");
        let head = answer.to_ascii_lowercase();
        assert!(head.starts_with("http/1.1 503"), "{answer}");
        assert!(head.contains("\r\nretry-after: 1\r\n"), "{answer}");
        assert!(answer.contains(r#""code":"busy""#), "{answer}");
        assert_eq!(state.accounts.hashes_started(), 0);
        let metrics = state.metrics.render();
        assert!(metrics.contains("euchre_password_hashes_busy_total 1"), "{metrics}");

        // Free again, the same log-in is checked (and there is no such account).
        drop(held);
        let answer = euchre_testkit::eventually("a free hashing thread", PATIENCE, async || {
            match state.accounts.log_in(IpAddr::from([127, 0, 0, 1]), "Ann", "correct horse").await
            {
                Err(AccountError::Busy) => None,
                other => Some(other),
            }
        })
        .await;
        assert_eq!(answer.err(), Some(AccountError::BadCredentials));
        server.abort();
    }
}
