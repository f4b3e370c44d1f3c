//! Sessions that end everywhere at once. A [`Revocation`] says what ended
//! (a log-out, a password change, a claim, a ban); [`Open`] holds this node's
//! welcomed connections by the token each said hello with, so that a
//! revocation cuts them, and a generation that a token's lookup compares
//! before it caches or watches what it read: a lookup that raced a
//! revocation looks again instead of keeping what was just revoked. In a
//! cluster every node hears every revocation (`node/revocations.rs`).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use euchre_protocol::close;
use euchre_store::Millis;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use crate::sanctions::until_text;
use crate::table::ConnId;

/// Something that ends tokens: what every node applies, as JSON on the
/// cluster's subject.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "ended", rename_all = "snake_case")]
pub enum Revocation {
    /// A session logged out.
    Session { token_hash: String },
    /// A password changed: every token of the player ends but `except`,
    /// the session that changed it.
    Password { player_id: String, except: String },
    /// A guest claimed `name_key`: its guest token is retired and no new
    /// guest may take the name. Its open connections stay: it is the same
    /// player, who goes on with a session.
    Claimed { player_id: String, name_key: String },
    /// The player deleted their account: every token of theirs ends.
    Deleted { player_id: String },
    /// A deleted account's cooling-off ended: `name_key` is free again.
    /// Ends nothing.
    NameFreed { name_key: String },
    /// A moderator banned the player (`until` `None`: for good): every
    /// token of theirs is refused until then, and their connections close
    /// with [`close::BANNED`].
    Banned { player_id: String, until: Option<Millis> },
}

impl Revocation {
    /// Whether a token of `player_id`, `token_hash`, ends.
    pub fn ends(&self, token_hash: &str, player_id: &str) -> bool {
        match self {
            Revocation::Session { token_hash: ended } => ended == token_hash,
            Revocation::Password { player_id: of, except } => {
                of == player_id && except != token_hash
            }
            Revocation::Claimed { player_id: of, .. }
            | Revocation::Deleted { player_id: of }
            | Revocation::Banned { player_id: of, .. } => of == player_id,
            Revocation::NameFreed { .. } => false,
        }
    }

    /// The close code and reason a connection it cuts is closed with.
    pub fn closing(&self) -> (u16, String) {
        match self {
            Revocation::Banned { until, .. } => (close::BANNED, until_text("banned", *until)),
            _ => (close::SESSION_ENDED, "session ended: log in again".to_owned()),
        }
    }

    /// Whether a connection that said hello with such a token closes.
    fn cuts(&self, token_hash: &str, player_id: &str) -> bool {
        !matches!(self, Revocation::Claimed { .. }) && self.ends(token_hash, player_id)
    }
}

/// This node's welcomed connections, and the revocations' generation.
#[derive(Clone, Debug, Default)]
pub struct Open {
    // A std mutex: held for a map update, never across an await.
    inner: Arc<Mutex<Inner>>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Counts the revocations applied on this node.
    generation: u64,
    /// Revocations are rare: scanning this node's connections for one costs
    /// less than keeping a second index current at every hello.
    connections: HashMap<ConnId, Connection>,
}

#[derive(Debug)]
struct Connection {
    token_hash: String,
    player_id: String,
    cut: CancellationToken,
    why: Why,
}

/// The close code and reason of a cut connection, set before it is cut.
pub type Why = Arc<OnceLock<(u16, String)>>;

/// A connection's place in [`Open`]: `cut` fires when its token is
/// revoked; dropping the watch takes the connection out.
#[derive(Debug)]
pub struct Watch {
    conn: ConnId,
    cut: CancellationToken,
    why: Why,
    open: Open,
}

impl Watch {
    /// Fires when the connection's session ends.
    pub fn cut(&self) -> CancellationToken {
        self.cut.clone()
    }

    /// Why it was cut, once it is: the close code and reason.
    pub fn why(&self) -> Why {
        self.why.clone()
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.open.lock().connections.remove(&self.conn);
    }
}

impl Open {
    /// The revocations seen so far: read before a lookup, given to
    /// [`Open::if_unrevoked`] after it.
    pub fn generation(&self) -> u64 {
        self.lock().generation
    }

    /// If no revocation came since `seen`: runs `keep` (a cache insert)
    /// and watches `conn`, under the lock every revocation takes too, so
    /// none can fall between the check and the insert. `None` if one came:
    /// what was read may be revoked already, so look again.
    pub fn if_unrevoked(
        &self,
        seen: u64,
        conn: Option<(ConnId, &str, &str)>,
        keep: impl FnOnce(),
    ) -> Option<Option<Watch>> {
        let mut inner = self.lock();
        if inner.generation != seen {
            return None;
        }
        keep();
        Some(
            conn.map(|(conn, token_hash, player_id)| {
                self.add(&mut inner, conn, token_hash, player_id)
            }),
        )
    }

    /// Watches a connection whose token was just made (a new guest's):
    /// nothing can have revoked it.
    pub fn watch(&self, conn: ConnId, token_hash: &str, player_id: &str) -> Watch {
        let mut inner = self.lock();
        self.add(&mut inner, conn, token_hash, player_id)
    }

    /// Applies `revocation`: a new generation, `forget` (the cache's
    /// removals) under the same lock, and every connection it ends cut.
    pub fn revoke(&self, revocation: &Revocation, forget: impl FnOnce()) {
        let mut inner = self.lock();
        inner.generation += 1;
        forget();
        inner.connections.retain(|_, connection| {
            let cut = revocation.cuts(&connection.token_hash, &connection.player_id);
            if cut {
                let _ = connection.why.set(revocation.closing());
                connection.cut.cancel();
            }
            !cut
        });
    }

    /// The players connected to this node now.
    pub fn players(&self) -> HashSet<String> {
        self.lock().connections.values().map(|c| c.player_id.clone()).collect()
    }

    fn add(&self, inner: &mut Inner, conn: ConnId, token_hash: &str, player_id: &str) -> Watch {
        let (cut, why) = (CancellationToken::new(), Why::default());
        let connection = Connection {
            token_hash: token_hash.to_owned(),
            player_id: player_id.to_owned(),
            cut: cut.clone(),
            why: why.clone(),
        };
        inner.connections.insert(conn, connection);
        Watch { conn, cut, why, open: self.clone() }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding this lock cannot leave the map half-updated.
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    //! The race a revocation can lose: a lookup reads a session that is
    //! still valid, the revocation lands, and then the lookup caches what
    //! it read. A store that lets the revocation in exactly there makes it
    //! happen every time.

    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, OnceLock};

    use async_trait::async_trait;
    use euchre_store::*;

    use super::*;
    use crate::identity::{self, Players};

    /// A store that, once armed, revokes a session right after reading it
    /// (as another node's log-out would land), returning the stale row.
    #[derive(Debug)]
    struct RevokingStore {
        inner: Arc<dyn Store>,
        players: OnceLock<Arc<Players>>,
        armed: AtomicBool,
    }

    #[async_trait]
    impl Store for RevokingStore {
        async fn session_by_token_hash(&self, hash: &str) -> Result<Option<Session>, StoreError> {
            let read = self.inner.session_by_token_hash(hash).await?;
            if self.armed.swap(false, Ordering::SeqCst) {
                self.inner.revoke_session(hash, 1).await?;
                if let Some(players) = self.players.get() {
                    players.revoke(Revocation::Session { token_hash: hash.to_owned() });
                }
            }
            Ok(read)
        }
        async fn migrate(&self) -> Result<(), StoreError> {
            self.inner.migrate().await
        }
        async fn ping(&self) -> Result<(), StoreError> {
            self.inner.ping().await
        }
        async fn apply(&self, writes: &[Write]) -> Result<(), StoreError> {
            self.inner.apply(writes).await
        }
        async fn player_by_token_hash(&self, hash: &str) -> Result<Option<PlayerRow>, StoreError> {
            self.inner.player_by_token_hash(hash).await
        }
        async fn live_tables(&self) -> Result<Vec<Result<LiveTable, UnreadableTable>>, StoreError> {
            self.inner.live_tables().await
        }
        async fn list_matches(&self, query: &MatchQuery) -> Result<MatchPage, StoreError> {
            self.inner.list_matches(query).await
        }
        async fn get_match(&self, id: &str) -> Result<Option<MatchDetail>, StoreError> {
            self.inner.get_match(id).await
        }
        async fn table_record(&self, id: &str) -> Result<Option<TableRecord>, StoreError> {
            self.inner.table_record(id).await
        }
        async fn abandon_orphaned_matches(&self) -> Result<u64, StoreError> {
            self.inner.abandon_orphaned_matches().await
        }
        async fn player_stats(&self, id: &str) -> Result<PlayerStats, StoreError> {
            self.inner.player_stats(id).await
        }
        async fn claim_account(&self, claim: &AccountClaim) -> Result<ClaimOutcome, StoreError> {
            self.inner.claim_account(claim).await
        }
        async fn account_by_name(&self, key: &str) -> Result<Option<Account>, StoreError> {
            self.inner.account_by_name(key).await
        }
        async fn account_by_player(&self, id: &str) -> Result<Option<Account>, StoreError> {
            self.inner.account_by_player(id).await
        }
        async fn account_keys(&self) -> Result<Vec<AccountKey>, StoreError> {
            self.inner.account_keys().await
        }
        async fn account_standing(
            &self,
            id: &str,
            except: &str,
        ) -> Result<Option<AccountStanding>, StoreError> {
            self.inner.account_standing(id, except).await
        }
        async fn rated_together(&self, a: &str, b: &str, since: Millis) -> Result<u32, StoreError> {
            self.inner.rated_together(a, b, since).await
        }
        async fn set_account_keys(&self, keys: &[AccountKey]) -> Result<(), StoreError> {
            self.inner.set_account_keys(keys).await
        }
        async fn create_session(&self, session: &NewSession) -> Result<(), StoreError> {
            self.inner.create_session(session).await
        }
        async fn revoke_session(&self, hash: &str, at: Millis) -> Result<(), StoreError> {
            self.inner.revoke_session(hash, at).await
        }
        async fn revoke_sessions_beyond(
            &self,
            id: &str,
            keep: u32,
            now: Millis,
        ) -> Result<Vec<String>, StoreError> {
            self.inner.revoke_sessions_beyond(id, keep, now).await
        }
        async fn purge(
            &self,
            now: Millis,
            guests_before: Millis,
            keep: &HashSet<String>,
        ) -> Result<Purged, StoreError> {
            self.inner.purge(now, guests_before, keep).await
        }
        async fn rate_match(
            &self,
            rated: &RatedMatch,
            rate: RateFn<'_>,
        ) -> Result<Vec<RatingChange>, StoreError> {
            self.inner.rate_match(rated, rate).await
        }
        async fn leaderboard(
            &self,
            form: &str,
            limit: u32,
            offset: u32,
        ) -> Result<Vec<BoardEntry>, StoreError> {
            self.inner.leaderboard(form, limit, offset).await
        }
        async fn player_ratings(&self, id: &str) -> Result<Vec<FormRating>, StoreError> {
            self.inner.player_ratings(id).await
        }
        async fn rating_history(
            &self,
            id: &str,
            limit: u32,
        ) -> Result<Vec<RatingPoint>, StoreError> {
            self.inner.rating_history(id, limit).await
        }
        async fn change_password(
            &self,
            hash: &str,
            session: &NewSession,
        ) -> Result<(), StoreError> {
            self.inner.change_password(hash, session).await
        }
        async fn delete_account(&self, id: &str, at: Millis) -> Result<bool, StoreError> {
            self.inner.delete_account(id, at).await
        }
        async fn held_names(&self) -> Result<Vec<String>, StoreError> {
            self.inner.held_names().await
        }
        async fn release_held_names(&self, before: Millis) -> Result<Vec<String>, StoreError> {
            self.inner.release_held_names(before).await
        }
        async fn match_analysis(&self, id: &str) -> Result<Option<String>, StoreError> {
            self.inner.match_analysis(id).await
        }
        async fn save_match_analysis(&self, saved: &SavedAnalysis<'_>) -> Result<(), StoreError> {
            self.inner.save_match_analysis(saved).await
        }
        async fn recent_accuracy(
            &self,
            id: &str,
            matches: u32,
        ) -> Result<Vec<FormAccuracy>, StoreError> {
            self.inner.recent_accuracy(id, matches).await
        }
        async fn role_of(&self, id: &str) -> Result<Option<Role>, StoreError> {
            self.inner.role_of(id).await
        }
        async fn set_role(
            &self,
            id: &str,
            role: Option<Role>,
            entry: &NewLogEntry,
        ) -> Result<(), StoreError> {
            self.inner.set_role(id, role, entry).await
        }
        async fn moderation_log(
            &self,
            before: Option<i64>,
            limit: u32,
        ) -> Result<Vec<LogEntry>, StoreError> {
            self.inner.moderation_log(before, limit).await
        }
        async fn social_lists(&self, id: &str) -> Result<SocialLists, StoreError> {
            self.inner.social_lists(id).await
        }
        async fn set_relation(
            &self,
            id: &str,
            relation: Relation,
            other: &str,
            on: Option<Millis>,
        ) -> Result<(), StoreError> {
            self.inner.set_relation(id, relation, other, on).await
        }
        async fn set_guest_block(
            &self,
            id: &str,
            other: &str,
            on: Option<Millis>,
        ) -> Result<(), StoreError> {
            self.inner.set_guest_block(id, other, on).await
        }
        async fn guest_blocks(&self, id: &str) -> Result<Vec<String>, StoreError> {
            self.inner.guest_blocks(id).await
        }
        async fn blocked_either_way(&self, id: &str) -> Result<Vec<String>, StoreError> {
            self.inner.blocked_either_way(id).await
        }
        async fn file_report(
            &self,
            report: &NewReport,
            limits: ReportLimits,
        ) -> Result<ReportOutcome, StoreError> {
            self.inner.file_report(report, limits).await
        }
        async fn open_reports(&self, limit: u32) -> Result<Vec<Report>, StoreError> {
            self.inner.open_reports(limit).await
        }
        async fn close_report(&self, id: i64, entry: &NewLogEntry) -> Result<bool, StoreError> {
            self.inner.close_report(id, entry).await
        }

        async fn sanction(&self, s: &Sanction, entry: &NewLogEntry) -> Result<(), StoreError> {
            self.inner.sanction(s, entry).await
        }
        async fn live_sanctions(&self, now: Millis) -> Result<LiveSanctions, StoreError> {
            self.inner.live_sanctions(now).await
        }
        async fn warnings(&self, id: &str) -> Result<Vec<Warning>, StoreError> {
            self.inner.warnings(id).await
        }
        async fn unfinished_tournaments(
            &self,
        ) -> Result<Vec<euchre_store::StoredTournament>, StoreError> {
            self.inner.unfinished_tournaments().await
        }
        async fn tournament(
            &self,
            id: &str,
        ) -> Result<Option<euchre_store::StoredTournament>, StoreError> {
            self.inner.tournament(id).await
        }
        async fn listed_tournaments(
            &self,
            limit: u32,
        ) -> Result<Vec<euchre_store::StoredTournament>, StoreError> {
            self.inner.listed_tournaments(limit).await
        }
        async fn save_puzzles(
            &self,
            puzzles: &[euchre_store::NewPuzzle],
            at: Millis,
        ) -> Result<u32, StoreError> {
            self.inner.save_puzzles(puzzles, at).await
        }
        async fn puzzle(&self, id: i64) -> Result<Option<euchre_store::StoredPuzzle>, StoreError> {
            self.inner.puzzle(id).await
        }
        async fn next_puzzle(
            &self,
            player: Option<&str>,
            near: f64,
        ) -> Result<Option<euchre_store::StoredPuzzle>, StoreError> {
            self.inner.next_puzzle(player, near).await
        }
        async fn random_puzzle(
            &self,
            fraction: f64,
        ) -> Result<Option<euchre_store::StoredPuzzle>, StoreError> {
            self.inner.random_puzzle(fraction).await
        }
        async fn puzzles_before(&self, before: Millis) -> Result<u64, StoreError> {
            self.inner.puzzles_before(before).await
        }
        async fn nth_puzzle_before(
            &self,
            before: Millis,
            nth: u64,
        ) -> Result<Option<euchre_store::StoredPuzzle>, StoreError> {
            self.inner.nth_puzzle_before(before, nth).await
        }
        async fn answer_puzzle(
            &self,
            attempt: &euchre_store::PuzzleAttempt,
            start: euchre_store::Glicko,
            rate: euchre_store::PuzzleRateFn<'_>,
        ) -> Result<Option<euchre_store::PuzzleRated>, StoreError> {
            self.inner.answer_puzzle(attempt, start, rate).await
        }
        async fn puzzle_rating(
            &self,
            player_id: &str,
        ) -> Result<Option<euchre_store::PuzzleRating>, StoreError> {
            self.inner.puzzle_rating(player_id).await
        }
        async fn puzzle_attempts(
            &self,
            player_id: &str,
            limit: u32,
        ) -> Result<Vec<euchre_store::PuzzleAttempt>, StoreError> {
            self.inner.puzzle_attempts(player_id, limit).await
        }
        async fn acknowledge_warning(
            &self,
            p: &str,
            id: i64,
            at: Millis,
        ) -> Result<(), StoreError> {
            self.inner.acknowledge_warning(p, id, at).await
        }
        async fn record_sighting(&self, p: &str, hash: &str, at: Millis) -> Result<(), StoreError> {
            self.inner.record_sighting(p, hash, at).await
        }
        async fn dossier(&self, id: &str, now: Millis) -> Result<Dossier, StoreError> {
            self.inner.dossier(id, now).await
        }
        async fn pick_name(
            &self,
            id: &str,
            name: &str,
            key: &str,
            entry: &NewLogEntry,
        ) -> Result<bool, StoreError> {
            self.inner.pick_name(id, name, key, entry).await
        }
        async fn moderation_key(&self, name: &str, fresh: &str) -> Result<String, StoreError> {
            self.inner.moderation_key(name, fresh).await
        }
    }

    /// A store in `data` holding Ann's account and one session, and that
    /// session's token.
    async fn ann_with_a_session(data: &std::path::Path) -> (Arc<dyn Store>, String) {
        let url = format!("sqlite://{}/euchre.db", data.display());
        let inner: Arc<dyn Store> = Arc::from(euchre_store::connect(&url).await.expect("a store"));
        inner.migrate().await.expect("migrated");
        let guest =
            Write::Player { id: "ann".into(), name: "Ann".into(), token_hash: "g".into(), at: 1 };
        inner.apply(&[guest]).await.expect("the guest");
        let token = identity::new_token();
        let session = NewSession {
            token_hash: identity::hash(&token),
            player_id: "ann".into(),
            created_at: 1,
            expires_at: i64::MAX,
        };
        let claim = AccountClaim {
            player: PlayerRow { id: "ann".into(), name: "Ann".into() },
            guest_token_hash: "g".into(),
            name_key: "ann".into(),
            password_hash: "unused".into(),
            session,
        };
        assert_eq!(inner.claim_account(&claim).await.expect("claimed"), ClaimOutcome::Claimed);
        (inner, token)
    }

    /// Another node's log-out whose message never came (core NATS, at most
    /// once): the session is let in from memory only until its memory is
    /// [`identity::SESSION_RECHECK`] old, then read again and refused.
    #[tokio::test]
    async fn a_session_revoked_elsewhere_with_the_message_lost_is_refused_after_the_recheck() {
        let data = tempfile::tempdir().expect("a folder");
        let (store, token) = ann_with_a_session(data.path()).await;
        let (recorder, _writer) =
            euchre_store::writer::start(store.clone(), data.path().join("journal"), 16)
                .await
                .expect("the journal");
        let players = Players::new(store.clone(), recorder, 16);
        assert!(players.authenticate(&token).await.expect("no error").is_some(), "cached");
        store.revoke_session(&identity::hash(&token), 2).await.expect("revoked elsewhere");
        assert!(players.authenticate(&token).await.expect("no error").is_some(), "from memory");
        tokio::time::pause();
        tokio::time::advance(identity::SESSION_RECHECK).await;
        tokio::time::resume();
        assert_eq!(players.authenticate(&token).await.expect("no error"), None, "read again");
    }

    #[tokio::test]
    async fn a_session_revoked_between_its_read_and_its_caching_is_not_let_in() {
        let data = tempfile::tempdir().expect("a folder");
        // Ann's account and one session, straight into the database.
        let (inner, token) = ann_with_a_session(data.path()).await;

        let store = Arc::new(RevokingStore { inner, players: OnceLock::new(), armed: true.into() });
        let (recorder, _writer) =
            euchre_store::writer::start(store.clone(), data.path().join("journal"), 16)
                .await
                .expect("the journal");
        let players = Arc::new(Players::new(store.clone(), recorder, 16));
        store.players.set(players.clone()).expect("set once");

        // The lookup reads a valid session, then the revocation lands: the
        // lookup sees it and reads again, finding the session revoked.
        let found = players.admit(&token, 1).await.expect("no error");
        assert!(found.is_none(), "the revoked session was let in: {found:?}");
        assert!(!store.armed.load(Ordering::SeqCst), "the revocation did land mid-lookup");
        // And nothing stale was cached: later lookups refuse it too.
        assert_eq!(players.authenticate(&token).await.expect("no error"), None);
        assert!(players.connected().is_empty());
    }

    #[test]
    fn a_revocation_cuts_the_connections_it_ends_and_no_other() {
        let open = Open::default();
        let phone = open.watch(1, "phone", "ann");
        let laptop = open.watch(2, "laptop", "ann");
        let bob = open.watch(3, "bob", "bob");
        open.revoke(&Revocation::Session { token_hash: "phone".into() }, || {});
        assert!(phone.cut().is_cancelled());
        assert!(!laptop.cut().is_cancelled());
        let claimed = Revocation::Claimed { player_id: "bob".into(), name_key: "bob".into() };
        open.revoke(&claimed, || {});
        assert!(!bob.cut().is_cancelled(), "a claim keeps the guest's connections");
        let new_session = open.watch(4, "new", "ann");
        let changed = Revocation::Password { player_id: "ann".into(), except: "new".into() };
        open.revoke(&changed, || {});
        assert!(laptop.cut().is_cancelled());
        assert!(!new_session.cut().is_cancelled(), "the session that changed it stays");
        assert_eq!(open.players(), HashSet::from(["ann".to_owned(), "bob".to_owned()]));
        drop((phone, laptop, bob));
        assert_eq!(open.players(), HashSet::from(["ann".to_owned()]));
    }
}
