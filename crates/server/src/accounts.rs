//! Accounts: a guest claims its name with a password and keeps its player
//! id, then logs in from any device, logs out, and changes the password.
//!
//! Passwords are hashed with argon2id (the `argon2` crate's defaults, the
//! OWASP minimum: 19 MiB, two passes), on the blocking pool so a hash never
//! stalls the connections' tasks; only the PHC string is stored, and no
//! password is ever logged. A log-in is a session: a random bearer token,
//! stored as its SHA-256, with an expiry, revoked on log-out and, for every
//! session of the account, when the password changes. Log-in attempts are
//! limited per name and per address (governor's keyed limiters), and an
//! unknown name costs the same hash as a wrong password, so timing does not
//! tell which names exist.

use std::collections::HashSet;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use argon2::Argon2;
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use euchre_protocol::{ErrorCode, PlayerInfo};
use euchre_store::{
    Account, AccountClaim, AccountKey, ClaimOutcome, NewSession, PlayerRow, Store, StoreError,
};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::clock::now_ms;
use crate::config::AccountSettings;
use crate::identity::{self, Players};
pub use crate::text::name_key;

/// The shortest and longest password accepted, in characters.
pub const PASSWORD_CHARS: std::ops::RangeInclusive<usize> = 8..=128;

/// Keys a limiter holds before it drops those whose attempts are long past.
const LIMITER_KEYS: usize = 10_000;

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
    #[error("the accounts cannot be reached right now; try again")]
    Unavailable,
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
    by_name: DefaultKeyedRateLimiter<String>,
    by_address: DefaultKeyedRateLimiter<IpAddr>,
}

impl Accounts {
    pub fn new(store: Arc<dyn Store>, players: Arc<Players>, settings: &AccountSettings) -> Self {
        let quota = |per_minute: u32| {
            Quota::per_minute(NonZeroU32::new(per_minute).unwrap_or(NonZeroU32::MIN))
        };
        Accounts {
            store,
            players,
            session_ms: i64::try_from(settings.session_seconds.saturating_mul(1000))
                .unwrap_or(i64::MAX),
            by_name: RateLimiter::keyed(quota(settings.login_attempts_per_name)),
            by_address: RateLimiter::keyed(quota(settings.login_attempts_per_address)),
        }
    }

    /// The guest holding `token` claims `name` with `password`. Claims
    /// count against the address's log-in attempts: each costs a hash.
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
        self.by_address.check_key(&address).map_err(|not_until| self.refused(not_until))?;
        let password_hash = hash_password(password).await?;
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
        // The guest's token has served its turn: only sessions let it in now.
        self.players.forget_player(&guest.id);
        self.players.claimed(name_key(&name));
        Ok(self.started(PlayerInfo { id: guest.id, name }, token, &session))
    }

    /// Logs in from `address`: a new session for the account named `name`.
    pub async fn log_in(
        &self,
        address: IpAddr,
        name: &str,
        password: &str,
    ) -> Result<Started, AccountError> {
        let key = name_key(name);
        self.allow(address, &key)?;
        let account = self.account_named(name, &key).await?;
        let player = self.verify(account, password).await?;
        let (token, session) = self.new_session(&player.id);
        self.store.create_session(&session).await.map_err(unavailable)?;
        Ok(self.started(player, token, &session))
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
        self.players.forget(&token_hash);
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
        check_password(new)?;
        let player = self.player(token).await?;
        let account = self.store.account_by_player(&player.id).await.map_err(unavailable)?;
        let account = account.ok_or(AccountError::NotAnAccount)?;
        self.allow(address, &name_key(&account.player.name))?;
        let player = self.verify(Some(account), current).await?;
        let password_hash = hash_password(new).await?;
        let (token, session) = self.new_session(&player.id);
        self.store.change_password(&password_hash, &session).await.map_err(unavailable)?;
        self.players.forget_player(&player.id);
        Ok(self.started(player, token, &session))
    }

    /// The player holding `token`, or why not.
    async fn player(&self, token: &str) -> Result<PlayerInfo, AccountError> {
        match self.players.authenticate(token).await {
            Ok(Some(player)) => Ok(player),
            Ok(None) => Err(AccountError::BadToken),
            Err(refusal) if refusal.code == ErrorCode::SessionExpired.code() => {
                Err(AccountError::SessionExpired)
            }
            Err(_) => Err(AccountError::Unavailable),
        }
    }

    /// One more attempt from `address` at the account `key`, if both may.
    fn allow(&self, address: IpAddr, key: &str) -> Result<(), AccountError> {
        if self.by_address.len().max(self.by_name.len()) > LIMITER_KEYS {
            self.by_address.retain_recent();
            self.by_name.retain_recent();
        }
        self.by_address.check_key(&address).map_err(|not_until| self.refused(not_until))?;
        self.by_name.check_key(&key.to_owned()).map_err(|not_until| self.refused(not_until))
    }

    /// A refusal saying how long to wait.
    fn refused(
        &self,
        not_until: governor::NotUntil<governor::clock::QuantaInstant>,
    ) -> AccountError {
        let now = governor::clock::Clock::now(&governor::clock::DefaultClock::default());
        AccountError::RateLimited { retry_after: not_until.wait_time_from(now) }
    }

    /// The account's player if `password` is its password. Without an
    /// account a dummy hash is checked, so both refusals take as long.
    async fn verify(
        &self,
        account: Option<Account>,
        password: &str,
    ) -> Result<PlayerInfo, AccountError> {
        let stored = match &account {
            Some(account) => account.password_hash.clone(),
            None => dummy_hash().await?,
        };
        let password = password.to_owned();
        let matches = tokio::task::spawn_blocking(move || {
            PasswordHash::new(&stored).is_ok_and(|hash| {
                Argon2::default().verify_password(password.as_bytes(), &hash).is_ok()
            })
        })
        .await
        .map_err(|_| AccountError::Unavailable)?;
        match account {
            Some(account) if matches => {
                Ok(PlayerInfo { id: account.player.id, name: account.player.name })
            }
            _ => Err(AccountError::BadCredentials),
        }
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

/// argon2id with a random salt, as a PHC string, off the async threads.
async fn hash_password(password: &str) -> Result<String, AccountError> {
    let password = password.to_owned();
    tokio::task::spawn_blocking(move || {
        Argon2::default().hash_password(password.as_bytes()).map(|hash| hash.to_string())
    })
    .await
    .ok()
    .and_then(Result::ok)
    .ok_or(AccountError::Unavailable)
}

/// The hash an unknown name is checked against: made once.
async fn dummy_hash() -> Result<String, AccountError> {
    static DUMMY: OnceLock<String> = OnceLock::new();
    if let Some(hash) = DUMMY.get() {
        return Ok(hash.clone());
    }
    let hash = hash_password("no account has this password").await?;
    Ok(DUMMY.get_or_init(|| hash).clone())
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[tokio::test]
    async fn hashes_are_argon2id_salted_and_verify() {
        let first = hash_password("correct horse").await.expect("hashed");
        let second = hash_password("correct horse").await.expect("hashed");
        assert!(first.starts_with("$argon2id$"), "{first}");
        assert_ne!(first, second, "a fresh salt each time");
        assert!(!first.contains("correct horse"));
        let hash = PasswordHash::new(&first).expect("a PHC string");
        assert!(Argon2::default().verify_password(b"correct horse", &hash).is_ok());
        assert!(Argon2::default().verify_password(b"wrong horse", &hash).is_err());
    }
}
