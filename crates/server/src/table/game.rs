//! A game at a table: its start, each action applied and the writes it
//! makes, the fair-deal seals and reveals, and, once won, its rating.

use euchre_engine::{Action, Commitment, Event, Game, GameRecord, Salt, Seat, Seed, Viewer};
use euchre_protocol::{TableEvent, TableNotice};
use euchre_store::{MatchSeat, Write};
use tokio::time::Instant;

use super::delivery::AfterDurable;
use super::{Sitter, Table, TableMessage};
use crate::analysis_queue::Played;
use crate::clock::now_ms;
use crate::ratings::FinishedGame;

impl Table {
    pub(super) fn begin_game(&mut self) {
        let seed = match draw_seed() {
            Ok(seed) => seed,
            Err(error) => {
                tracing::error!(table = %self.id, %error, "no random seed: cannot start a game");
                return;
            }
        };
        let mut game = match Game::new(self.rules, seed) {
            Ok(game) => game,
            Err(error) => {
                // The rules were validated when the table was made.
                tracing::error!(table = %self.id, %error, "cannot start a game");
                return;
            }
        };
        let commitment = seal_hand(&mut game);
        self.games_started += 1;
        let match_id = uuid::Uuid::now_v7().to_string();
        let first_deal = game.current_deal_event();
        self.delivery.writes.push(Write::MatchStarted {
            id: match_id.clone(),
            table_id: self.id.clone(),
            number: self.games_started,
            rules: self.rules,
            seed,
            start: game.start().clone(),
            seats: self.match_seats(),
            at: now_ms(),
        });
        self.delivery.writes.push(Write::HandDealt {
            match_id: match_id.clone(),
            number: 0,
            deal: *game.hand().deal(),
            seal: game.record().hands[0].seal,
        });
        self.rated_players = self.rated_players();
        self.forfeits = vec![false; self.seats.len()];
        self.timeouts = vec![0; self.seats.len()];
        for state in &mut self.seats {
            state.stood_in = None;
        }
        self.game = Some(game);
        self.match_id = Some(match_id);
        self.last_change = Instant::now();
        self.publish(TableEvent::Table(TableNotice::GameStarted {
            game: self.games_started,
            rules: self.rules,
        }));
        self.publish(TableEvent::Game(first_deal));
        if let Some(commitment) = commitment {
            self.publish(TableEvent::Table(TableNotice::DealCommitted { hand: 0, commitment }));
        }
        self.tell_if_unrated();
    }

    /// At a rated table, finds out off the loop whether the game just
    /// started will be rated; if not, its players hear why now (`unrated`),
    /// not only at its end.
    fn tell_if_unrated(&self) {
        let (Some(players), Some(ratings), Some(match_id)) =
            (self.rated_players.clone(), self.config.ratings.clone(), self.match_id.clone())
        else {
            return;
        };
        let rules = self.rules;
        let mailbox = self.mailbox.clone();
        tokio::spawn(async move {
            let Some(notice) = ratings.notice_at_start(&match_id, &rules, &players).await else {
                return;
            };
            if let Some(mailbox) = mailbox.upgrade() {
                let _ = mailbox.send(TableMessage::Unrated { match_id, notice }).await;
            }
        });
    }

    /// The person in `seat` forfeits the rated game in progress (a
    /// forfeit stands: coming back later plays on, but does not undo it).
    /// Journaled, so that a restart does not forget it.
    pub(super) fn forfeit(&mut self, seat: Seat) {
        let playing = self.game.as_ref().is_some_and(|game| !game.is_over());
        if self.rated_players.is_some()
            && playing
            && let Some(match_id) = &self.match_id
            && let Some(forfeited) = self.forfeits.get_mut(seat.index())
            && !*forfeited
        {
            *forfeited = true;
            let write = Write::Forfeited { match_id: match_id.clone(), seat: seat.0, at: now_ms() };
            self.delivery.writes.push(write);
        }
    }

    /// The turn timer plays for the person in `seat`: in a rated game, the
    /// `ratings.timeouts_to_forfeit`th time forfeits it and a bot takes the
    /// seat for good (as if they had left), so that nobody holds a losing
    /// game hostage by letting every turn run out.
    pub(super) fn timed_out(&mut self, seat: Seat, at: super::bots::Position) {
        let limit = self.config.ratings.as_ref().map_or(0, |r| r.timeouts_to_forfeit());
        if limit == 0 || self.rated_players.is_none() || self.last_timeout == Some((seat, at)) {
            return;
        }
        self.last_timeout = Some((seat, at));
        let Some(count) = self.timeouts.get_mut(seat.index()) else { return };
        *count += 1;
        if *count >= limit {
            self.give_seat_to_bot(seat);
        }
    }

    /// The players to rate when the game starting now ends: a person in
    /// every seat, at a table set up rated.
    pub(super) fn rated_players(&self) -> Option<Vec<String>> {
        self.rated(self.seats.iter().map(|state| match &state.sitter {
            Some(Sitter::Human(player)) => Some(player.id.clone()),
            _ => None,
        }))
    }

    /// The players to rate, given each seat's person (`None`: a bot) when
    /// the game started: all of them, if every seat held one at a table
    /// set up rated (a match stored without its seats is not rated).
    pub(super) fn rated(
        &self,
        players: impl Iterator<Item = Option<String>>,
    ) -> Option<Vec<String>> {
        if !self.settings.rated || self.config.ratings.is_none() {
            return None;
        }
        let players: Vec<String> = players.collect::<Option<_>>()?;
        (players.len() == self.seats.len()).then_some(players)
    }

    /// Hands a game just won to the ratings, off the loop (they wait on the
    /// store); their notice comes back on the table's own mailbox.
    /// A game ends unwon (`winner` `None`: its table closed first) only by
    /// forfeit, and is rated only if someone forfeited it.
    pub(super) fn rate(&mut self, match_id: &str, scores: Vec<u16>, winner: Option<u8>) {
        let forfeited = std::mem::take(&mut self.forfeits);
        if winner.is_none() && !forfeited.contains(&true) {
            return;
        }
        let (Some(players), Some(ratings)) = (self.rated_players.take(), &self.config.ratings)
        else {
            return;
        };
        let forfeited = (0..players.len()).map(|i| forfeited.get(i) == Some(&true)).collect();
        let game = FinishedGame {
            match_id: match_id.to_owned(),
            rules: self.rules,
            players,
            scores,
            winner,
            forfeited,
        };
        let ratings = ratings.clone();
        let mailbox = self.mailbox.clone();
        tokio::spawn(async move {
            // Rated and stored even if the table has closed meanwhile; only
            // then is there nobody left to tell.
            let Some(notice) = ratings.rate(game).await else { return };
            if let Some(mailbox) = mailbox.upgrade() {
                let _ = mailbox.send(TableMessage::Rated(notice)).await;
            }
        });
    }

    /// Who sits where, as a match records it.
    fn match_seats(&self) -> Vec<MatchSeat> {
        self.seats
            .iter()
            .enumerate()
            .map(|(index, state)| {
                let seat = index as u8;
                let kind = match &state.sitter {
                    Some(Sitter::Human(player)) => {
                        return MatchSeat {
                            seat,
                            player_id: Some(player.id.clone()),
                            bot: None,
                            name: player.name.clone(),
                            stand_in: None,
                        };
                    }
                    Some(Sitter::Bot(kind)) => *kind,
                    None => self.bot_kind,
                };
                let bot = kind.name().to_owned();
                let name = format!("{bot} bot");
                MatchSeat { seat, player_id: None, name, bot: Some(bot), stand_in: None }
            })
            .collect()
    }

    /// Who sits where, as stored (the seats of a spectator's view).
    pub fn stored_seats(&self) -> serde_json::Value {
        serde_json::to_value(self.state_for(Viewer::Spectator).seats).unwrap_or_default()
    }

    /// Records who sits where now, and tells the registry who holds a seat.
    pub(super) fn record_seats(&mut self) {
        let seats = self.stored_seats();
        self.delivery.writes.push(Write::TableSeats { id: self.id.clone(), seats });
        self.registry.seat_players(&self.id, self.seated_players());
    }

    /// The people holding a seat, present or away: their "your games".
    pub fn seated_players(&self) -> Vec<String> {
        (self.seats.iter())
            .filter_map(|seat| match &seat.sitter {
                Some(Sitter::Human(player)) => Some(player.id.clone()),
                _ => None,
            })
            .collect()
    }
    /// Applies an action to the game and publishes what happened.
    pub(super) fn apply(
        &mut self,
        seat: Seat,
        action: Action,
    ) -> Result<(), euchre_engine::RuleError> {
        let game = self.game.as_mut().ok_or(euchre_engine::RuleError::GameOver)?;
        let hand = game.hand_number();
        let index = game.record().hands.last().map_or(0, |h| h.actions.len()) as u32;
        let events = game.apply(seat, action)?;
        let dealt = events.iter().any(|event| matches!(event, Event::HandDealt { .. }));
        let commitment = if dealt { seal_hand(game) } else { None };
        let ended = events.iter().any(|event| matches!(event, Event::HandEnded { .. }));
        let mut reveal = if ended { reveal_notice(game.record(), hand) } else { None };
        let next_deal = *game.hand().deal();
        let next_seal = game.record().hands.last().and_then(|record| record.seal);
        // The match ends with the game, or with a rubber's last game.
        let (over, final_scores, games) = (game.is_over(), game.scores(), game.games().to_vec());
        self.last_change = Instant::now();
        for event in &events {
            self.publish(TableEvent::Game(*event));
            // The reveal right after the hand's end, the commitment right after the deal.
            let notice = match event {
                Event::HandEnded { .. } => reveal.take(),
                Event::HandDealt { number, .. } => commitment
                    .map(|commitment| TableNotice::DealCommitted { hand: *number, commitment }),
                _ => None,
            };
            if let Some(notice) = notice {
                self.publish(TableEvent::Table(notice));
            }
        }
        let Some(match_id) = &self.match_id else { return Ok(()) };
        let at = now_ms();
        let mut rated = None;
        let writes = &mut self.delivery.writes;
        writes.push(Write::Action {
            match_id: match_id.clone(),
            hand,
            index,
            seat: seat.0,
            action,
            seq: self.seq,
            at,
        });
        for event in events {
            match event {
                Event::HandEnded { outcome, .. } => writes.push(Write::HandEnded {
                    match_id: match_id.clone(),
                    number: hand,
                    outcome,
                    at,
                }),
                Event::HandDealt { number, .. } => writes.push(Write::HandDealt {
                    match_id: match_id.clone(),
                    number,
                    deal: next_deal,
                    seal: next_seal,
                }),
                Event::GameWon { team, .. } if over => {
                    writes.push(Write::MatchEnded {
                        match_id: match_id.clone(),
                        scores: final_scores.as_slice().to_vec(),
                        winner: Some(team.0),
                        at,
                        games: games.clone(),
                    });
                    rated = Some(team.0);
                }
                _ => {}
            }
        }
        if let Some(winner) = rated {
            let match_id = match_id.clone();
            self.rate(&match_id, final_scores.as_slice().to_vec(), Some(winner));
            // Analysed once its end is durable: a crash cannot undo it then.
            if let (Some(analyses), Some(game)) = (self.config.analyses.clone(), &self.game) {
                let record = game.record().clone();
                let id = match_id.clone();
                let people =
                    self.seats.iter().any(|seat| matches!(seat.sitter, Some(Sitter::Human(_))));
                let played = if people { Played::ByPeople } else { Played::InBulk };
                let work = move || analyses.match_ended(&id, record, played);
                self.delivery.after.push(AfterDurable(Box::new(work)));
            }
        }
        Ok(())
    }
}

/// A match's seed: 32 bytes from the operating system's generator, all the
/// generator takes, so that nobody can search the seeds for the one that
/// deals the cards he has seen (and so know the rest of the match's deals).
fn draw_seed() -> Result<Seed, getrandom::Error> {
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed)?;
    Ok(Seed(seed))
}

/// Seals the hand just dealt with a fresh salt from the operating system's
/// generator, returning the commitment to publish. Should the generator
/// fail, the hand is dealt unsealed (and says so) rather than sealed with a
/// guessable salt.
fn seal_hand(game: &mut Game) -> Option<Commitment> {
    let mut salt = [0u8; 32];
    match getrandom::fill(&mut salt) {
        Ok(()) => Some(game.seal_hand(Salt(salt))),
        Err(error) => {
            tracing::error!(%error, "no random salt: the hand is dealt without a commitment");
            None
        }
    }
}

/// The reveal of hand `number`, once it has ended: its deck in the
/// committed order and its salt (none for a hand dealt unsealed).
fn reveal_notice(record: &GameRecord, number: u32) -> Option<TableNotice> {
    let hand = record.hands.get(number as usize)?;
    let seal = hand.seal?;
    Some(TableNotice::DealRevealed { hand: number, deck: hand.deal.deck(), salt: seal.salt })
}
