//! What a connection asks of a table: to sit, watch, resume, leave, start
//! a game or a rematch, act or chat; and what its going away changes.

use euchre_engine::{Action, Seat, Viewer};
use euchre_protocol::{
    ErrorCode, Occupant, PlayerInfo, Refusal, Reply, ServerMessage, TableEvent, TableNotice,
    TableStatus,
};
use euchre_store::{ChatLine, Write};
use tokio::time::Instant;

use super::{ConnId, Outbox, Request, SeatState, Sitter, Subscriber, Table, TableCommand};

impl Table {
    pub(super) fn command(&mut self, command: TableCommand) {
        let TableCommand { id, conn, player, outbox, request, received } = command;
        let is_action = matches!(request, Request::Act(_));
        if let Request::Matched = request {
            self.join_matched(conn, &player, &outbox);
            self.after_change();
            return;
        }
        if let Request::Report { player: reported, reason, details } = request {
            // Answered once the report is stored, by the task that files it.
            if let Err(refusal) =
                self.report(conn, &player, &outbox, id, &reported, reason, details)
            {
                self.delivery.stage(conn, &outbox, refusal.into_message(Some(id)));
            }
            return;
        }
        if let Request::Hint | Request::Review { .. } = request {
            // Answered by the task that asks the expert or the analysis,
            // off the table's own task.
            let asked = match request {
                Request::Review { hand } => self.review(&player, &outbox, id, hand),
                _ => self.hint(&player, &outbox, id),
            };
            if let Err(refusal) = asked {
                self.delivery.stage(conn, &outbox, refusal.into_message(Some(id)));
            }
            return;
        }
        let result = match request {
            Request::Sit { seat, invite, avoid } => {
                self.sit(conn, &player, &outbox, seat, invite, &avoid)
            }
            Request::Watch { invite } => self.watch(conn, &player, &outbox, invite),
            Request::Resume { last_seq } => self.resume(conn, &player, &outbox, last_seq),
            Request::Leave => self.leave(conn, &player),
            Request::Start => self.start(&player, false),
            Request::Rematch if super::hostless(&self.host) => self.ask_rematch(&player),
            Request::Rematch => self.start(&player, true),
            Request::Act(action) => self.act(&player, action),
            Request::Chat(text) => self.chat(conn, &player, text),
            Request::Matched | Request::Report { .. } | Request::Hint | Request::Review { .. } => {
                return;
            }
        };
        let answer = match result {
            Ok(reply) => ServerMessage::Ack { id, reply },
            Err(refusal) => refusal.into_message(Some(id)),
        };
        self.delivery.stage(conn, &outbox, answer);
        self.after_change();
        if is_action {
            self.config.metrics.action_latency.observe(received.elapsed().as_secs_f64());
        }
    }

    fn seat_of(&self, player: &PlayerInfo) -> Option<Seat> {
        self.seats
            .iter()
            .position(|s| matches!(&s.sitter, Some(Sitter::Human(p)) if p.id == player.id))
            .map(|i| Seat(i as u8))
    }

    fn check_invite(&self, invite: Option<&str>) -> Result<(), Refusal> {
        match (&self.invite, invite) {
            (None, _) => Ok(()),
            (Some(code), Some(given)) if code == given => Ok(()),
            _ => Err(ErrorCode::NoSuchTable.into()),
        }
    }

    fn sit(
        &mut self,
        conn: ConnId,
        player: &PlayerInfo,
        outbox: &Outbox,
        seat: Option<u8>,
        invite: Option<String>,
        avoid: &[String],
    ) -> Result<Reply, Refusal> {
        self.check_invite(invite.as_deref())?;
        if self.seat_of(player).is_some() {
            return Err(ErrorCode::AlreadySeated.into());
        }
        // Whoever made the block, the refusal is the same: it says nothing
        // of who blocked whom.
        let seated = self.seats.iter().filter_map(|s| match &s.sitter {
            Some(Sitter::Human(p)) => Some(&p.id),
            _ => None,
        });
        if seated.chain([&self.host.id]).any(|id| avoid.contains(id)) {
            return Err(ErrorCode::Blocked.into());
        }
        let index = match seat {
            Some(seat) if usize::from(seat) >= self.seats.len() => {
                return Err(ErrorCode::NoSuchSeat.into());
            }
            Some(seat) if self.seats[usize::from(seat)].sitter.is_some() => {
                return Err(ErrorCode::SeatTaken.into());
            }
            Some(seat) => usize::from(seat),
            None => self
                .seats
                .iter()
                .position(|s| s.sitter.is_none())
                .ok_or(Refusal::from(ErrorCode::TableFull))?,
        };
        self.seats[index].sitter = Some(Sitter::Human(player.clone()));
        self.seats[index].away_since = None;
        let seat = index as u8;
        self.publish(TableEvent::Table(TableNotice::SeatTaken {
            seat,
            occupant: Occupant::Player { player: player.clone(), connected: true },
        }));
        self.record_seats();
        self.subscribe(conn, player, outbox, Viewer::Seat(Seat(seat)));
        self.send_snapshot(conn);
        if self.game.is_none() && self.seats.iter().all(|s| s.sitter.is_some()) {
            self.begin_game();
        }
        Ok(Reply::Seated { table: self.id.clone(), seat })
    }

    /// Seats the players a quick-play pool matched, before the table runs:
    /// each away until their connection joins (`Request::Matched`), so a
    /// bot stands in for one who never comes.
    pub fn seat_matched(&mut self, players: &[Option<PlayerInfo>]) {
        let now = Instant::now();
        for (state, player) in self.seats.iter_mut().zip(players) {
            if let Some(player) = player {
                state.sitter = Some(Sitter::Human(player.clone()));
                state.away_since = Some(now);
            }
        }
    }

    /// A matched player's connection joins their seat; the first one to
    /// come starts the game (every seat was taken at the table's making).
    fn join_matched(&mut self, conn: ConnId, player: &PlayerInfo, outbox: &Outbox) {
        let Some(seat) = self.seat_of(player) else {
            let refused = ErrorCode::NotSeated.refusal("you have no seat at that table");
            self.delivery.stage(conn, outbox, refused.into_message(None));
            return;
        };
        self.subscribe(conn, player, outbox, Viewer::Seat(seat));
        self.send_snapshot(conn);
        if self.game.is_none() && self.seats.iter().all(|s| s.sitter.is_some()) {
            self.begin_game();
        }
    }

    fn watch(
        &mut self,
        conn: ConnId,
        player: &PlayerInfo,
        outbox: &Outbox,
        invite: Option<String>,
    ) -> Result<Reply, Refusal> {
        let seat = self.seat_of(player);
        // A player holding a seat came in with the invite once: coming back
        // from "your games" on another device needs no link.
        if seat.is_none() {
            self.check_invite(invite.as_deref())?;
            let cap = self.config.spectators;
            let watching = |s: &&Subscriber| matches!(s.viewer, Viewer::Spectator);
            if cap > 0
                && !self.subscribers.contains_key(&conn)
                && self.subscribers.values().filter(watching).count() >= cap
            {
                return Err(ErrorCode::WatchLimit
                    .refusal("this table has as many spectators as it takes; try again later"));
            }
        }
        let viewer = seat.map_or(Viewer::Spectator, Viewer::Seat);
        self.subscribe(conn, player, outbox, viewer);
        self.send_snapshot(conn);
        Ok(Reply::Watching { table: self.id.clone() })
    }

    fn resume(
        &mut self,
        conn: ConnId,
        player: &PlayerInfo,
        outbox: &Outbox,
        last_seq: u64,
    ) -> Result<Reply, Refusal> {
        let viewer = match (self.seat_of(player), self.subscribers.get(&conn)) {
            (Some(seat), _) => Viewer::Seat(seat),
            (None, Some(subscriber)) => subscriber.viewer,
            (None, None) if self.invite.is_none() => Viewer::Spectator,
            (None, None) => return Err(ErrorCode::NoSuchTable.into()),
        };
        self.subscribe(conn, player, outbox, viewer);
        let oldest = self.ring.front().map_or(self.seq + 1, |(seq, _)| *seq);
        // The missed events must fit the connection's queue with room to
        // spare: a longer tail would only get it dropped as too slow, and its
        // next resume likewise, for ever. It gets a snapshot instead.
        let fits = self.seq.saturating_sub(last_seq) < (outbox.room() / 2) as u64;
        let replayable = last_seq <= self.seq && last_seq + 1 >= oldest && fits;
        if replayable {
            let missed: Vec<ServerMessage> = self
                .ring
                .iter()
                .filter(|(seq, _)| *seq > last_seq)
                .map(|(seq, event)| self.project_message(*seq, event, viewer))
                .collect();
            for message in missed {
                self.delivery.stage(conn, outbox, message);
            }
        } else {
            self.send_snapshot(conn);
        }
        Ok(Reply::Resumed { table: self.id.clone(), snapshot: !replayable })
    }

    fn leave(&mut self, conn: ConnId, player: &PlayerInfo) -> Result<Reply, Refusal> {
        let watching = self.subscribers.remove(&conn).is_some();
        let Some(seat) = self.seat_of(player) else {
            return if watching { Ok(Reply::Done) } else { Err(ErrorCode::NotSeated.into()) };
        };
        self.subscribers.retain(|_, s| s.player_id != player.id);
        if self.status() == TableStatus::Playing {
            self.give_seat_to_bot(seat);
        } else {
            self.publish(TableEvent::Table(TableNotice::SeatLeft { seat: seat.0 }));
            self.seats[seat.index()] = SeatState::default();
            self.record_seats();
            // Asks stand or fall with who is left; with none, nothing to say.
            let asking = self.rematch_asked.iter().any(|asked| *asked);
            if super::hostless(&self.host) && self.status() == TableStatus::Finished && asking {
                self.rematch_asked[seat.index()] = false;
                self.rematch_changed();
            }
        }
        Ok(Reply::Done)
    }

    /// The person in `seat` gives up a game in progress (by leaving, or by
    /// letting too many turns run out): a bot takes the seat for good, and
    /// a rated game counts as lost for them. Connections of theirs still
    /// here watch on as spectators.
    pub(super) fn give_seat_to_bot(&mut self, seat: Seat) {
        let (index, seat_number) = (seat.index(), seat.0);
        for subscriber in self.subscribers.values_mut() {
            if subscriber.viewer == Viewer::Seat(seat) {
                subscriber.viewer = Viewer::Spectator;
            }
        }
        self.publish(TableEvent::Table(TableNotice::SeatLeft { seat: seat_number }));
        self.forfeit(seat);
        // The match's seat names the bot that plays it from here on.
        if let (Some(match_id), Some(game)) = (&self.match_id, &self.game)
            && !game.is_over()
            && matches!(self.seats[index].sitter, Some(Sitter::Human(_)))
        {
            let (match_id, bot) = (match_id.clone(), self.bot_kind.name().to_owned());
            let from_hand = game.hand_number();
            self.delivery.writes.push(Write::StandIn {
                match_id,
                seat: seat_number,
                bot,
                from_hand,
            });
        }
        self.seats[index] = SeatState {
            sitter: Some(Sitter::Bot(self.bot_kind)),
            bot: Some(self.bot_kind.create(self.bot_seed ^ u64::from(seat_number))),
            away_since: None,
            stood_in: None,
        };
        self.publish(TableEvent::Table(TableNotice::SeatTaken {
            seat: seat_number,
            occupant: Occupant::Bot { bot: self.bot_kind.name().to_owned() },
        }));
        self.record_seats();
    }

    fn start(&mut self, player: &PlayerInfo, rematch: bool) -> Result<Reply, Refusal> {
        if player.id != self.host.id {
            return Err(ErrorCode::NotHost.into());
        }
        match (self.status(), rematch) {
            (TableStatus::Playing, _) => return Err(ErrorCode::GameInProgress.into()),
            (TableStatus::Open, true) => return Err(ErrorCode::NotStarted.into()),
            (TableStatus::Finished, false) => return Err(ErrorCode::GameInProgress.into()),
            _ => {}
        }
        self.begin_with_bots();
        Ok(Reply::Done)
    }

    /// Bots take the empty seats, and the next game begins.
    fn begin_with_bots(&mut self) {
        let mut notices = Vec::new();
        for (index, state) in self.seats.iter_mut().enumerate() {
            if state.sitter.is_none() {
                state.sitter = Some(Sitter::Bot(self.bot_kind));
                state.bot = Some(self.bot_kind.create(self.bot_seed ^ index as u64));
                let occupant = Occupant::Bot { bot: self.bot_kind.name().to_owned() };
                let notice = TableNotice::SeatTaken { seat: index as u8, occupant };
                notices.push(notice);
            }
        }
        for notice in notices {
            self.publish(TableEvent::Table(notice));
        }
        self.record_seats();
        self.begin_game();
    }

    /// At a table without a host (quick play's), a seated player asks for
    /// a rematch of the game just over: it starts once every person still
    /// seated has asked (alone with bots: at once). A rated game's rematch
    /// is rated, so it needs every player who played it.
    fn ask_rematch(&mut self, player: &PlayerInfo) -> Result<Reply, Refusal> {
        let seat = self.seat_of(player).ok_or(ErrorCode::NotSeated)?;
        match self.status() {
            TableStatus::Playing => return Err(ErrorCode::GameInProgress.into()),
            TableStatus::Open => return Err(ErrorCode::NotStarted.into()),
            TableStatus::Finished => {}
        }
        if self.settings.rated && !self.everyone_stayed() {
            return Err(ErrorCode::NoRematch.into());
        }
        self.rematch_asked[seat.index()] = true;
        self.rematch_deadline.get_or_insert(Instant::now() + self.config.rematch_wait);
        self.rematch_changed();
        Ok(Reply::Done)
    }

    /// Whether every seat still holds a person (at a rated table, the ones
    /// who played: nobody sits down at a finished pool table).
    fn everyone_stayed(&self) -> bool {
        self.seats.iter().all(|state| matches!(state.sitter, Some(Sitter::Human(_))))
    }

    /// After an ask, or a leave: the rematch starts if everyone still
    /// seated has asked; otherwise everyone hears where the asking stands.
    /// At a rated table somebody left can never rematch: the asks lapse.
    fn rematch_changed(&mut self) {
        let people: Vec<usize> = (0..self.seats.len())
            .filter(|&i| matches!(self.seats[i].sitter, Some(Sitter::Human(_))))
            .collect();
        let asked = people.iter().any(|&i| self.rematch_asked[i]);
        let agreed = asked && people.iter().all(|&i| self.rematch_asked[i]);
        let possible = !self.settings.rated || self.everyone_stayed();
        if agreed && possible {
            self.start_rematch();
            return;
        }
        if !asked || !possible {
            self.rematch_asked.fill(false);
            self.rematch_deadline = None;
        }
        let vote = self.rematch_vote();
        self.publish(TableEvent::Table(TableNotice::RematchVote {
            asked: vote.asked,
            deadline_ms: vote.deadline_ms,
        }));
    }

    fn start_rematch(&mut self) {
        self.rematch_asked.fill(false);
        self.rematch_deadline = None;
        self.begin_with_bots();
    }

    /// The others' time to ask ran out. At a casual table, bots take the
    /// seats of those who did not ask, and the game starts; at a rated one
    /// (which needs them all) the asks lapse.
    pub(super) fn rematch_time_up(&mut self) {
        self.rematch_deadline = None;
        let asked = self.rematch_asked.iter().any(|asked| *asked);
        if self.settings.rated || !asked || self.status() != TableStatus::Finished {
            self.rematch_asked.fill(false);
            self.publish(TableEvent::Table(TableNotice::RematchVote {
                asked: Vec::new(),
                deadline_ms: None,
            }));
            return;
        }
        let silent: Vec<Seat> = (0..self.seats.len())
            .filter(|&i| matches!(self.seats[i].sitter, Some(Sitter::Human(_))))
            .filter(|&i| !self.rematch_asked[i])
            .map(|i| Seat(i as u8))
            .collect();
        for seat in silent {
            self.give_seat_to_bot(seat);
        }
        self.start_rematch();
    }

    /// Where the asking for a rematch stands.
    pub(super) fn rematch_vote(&self) -> euchre_protocol::RematchVote {
        let asked = (0..self.rematch_asked.len())
            .filter(|&i| self.rematch_asked[i])
            .map(|i| i as u8)
            .collect();
        let left = |deadline: Instant| {
            deadline.saturating_duration_since(Instant::now()).as_millis() as u64
        };
        euchre_protocol::RematchVote { asked, deadline_ms: self.rematch_deadline.map(left) }
    }

    fn act(&mut self, player: &PlayerInfo, action: Action) -> Result<Reply, Refusal> {
        let seat = self.seat_of(player).ok_or(ErrorCode::NotSeated)?;
        self.apply(seat, action)?;
        // Back and playing: what the bot played for them is told no more.
        self.seats[seat.index()].stood_in = None;
        Ok(Reply::Done)
    }

    /// A hint for `player`'s seat: the expert bot's choice and a line of
    /// why, worked out on the blocking pool from the seat's own view, and
    /// sent from there. Practice tables only: every other seat a bot, so
    /// the game is never rated, and not a tournament's; refused at any other.
    fn hint(
        &mut self,
        player: &PlayerInfo,
        outbox: &Outbox,
        id: euchre_protocol::CommandId,
    ) -> Result<(), Refusal> {
        let seat = self.practice_seat(player)?;
        let game = self.game.as_ref().ok_or(ErrorCode::NotStarted)?;
        match game.turn() {
            Some(turn) if turn == seat => {}
            Some(turn) => return Err(euchre_engine::RuleError::NotYourTurn { turn }.into()),
            None => return Err(ErrorCode::BadRequest.refusal("no decision is waiting")),
        }
        let at = super::bots::position(self.games_started, game);
        if self.hinted == Some(at) {
            return Err(ErrorCode::BadRequest.refusal("one hint a decision: this one was given"));
        }
        self.hinted = Some(at);
        let view = game.view(Viewer::Seat(seat));
        let legal = game.legal_actions(seat).to_vec();
        let seed = self.bot_seed ^ u64::from(seat.0) ^ u64::from(view.hand_number) << 8;
        let (table, outbox) = (self.id.clone(), outbox.clone());
        answer_from_pool(outbox, id, move || {
            let hint = euchre_puzzles::hint(&view, &legal, seed)?;
            Some(Reply::Hint { table, action: hint.action, why: hint.why })
        });
        Ok(())
    }

    /// `player`'s seat at a practice table: every other seat a bot, so the
    /// game is never rated, and not a tournament's. Hints and reviews are
    /// refused at any other.
    fn practice_seat(&self, player: &PlayerInfo) -> Result<Seat, Refusal> {
        let seat = self.seat_of(player).ok_or(ErrorCode::NotSeated)?;
        let others_bots = (self.seats.iter().enumerate())
            .filter(|(index, _)| *index != seat.index())
            .all(|(_, state)| matches!(state.sitter, Some(Sitter::Bot(_))));
        let tournament = self.host.id == super::TOURNAMENT_HOST;
        if !others_bots || self.rated_players.is_some() || tournament {
            return Err(ErrorCode::HintNotAllowed.into());
        }
        Ok(seat)
    }

    /// The review of finished hand `hand` of the game in play for
    /// `player`'s seat: its biggest mistake, valued over worlds dealt from
    /// the seat's view, worked out on the blocking pool and sent from
    /// there. Practice tables only, and once a hand.
    fn review(
        &mut self,
        player: &PlayerInfo,
        outbox: &Outbox,
        id: euchre_protocol::CommandId,
        hand: u32,
    ) -> Result<(), Refusal> {
        let seat = self.practice_seat(player)?;
        let game = self.game.as_ref().ok_or(ErrorCode::NotStarted)?;
        let record = game.record();
        if record.hands.get(hand as usize).is_none_or(|played| played.outcome.is_none()) {
            return Err(ErrorCode::BadRequest.refusal("that hand is not over in this game"));
        }
        if self.reviewed.is_some_and(|(game, last)| game == self.games_started && hand <= last) {
            return Err(ErrorCode::BadRequest.refusal("one review a hand: this one was given"));
        }
        self.reviewed = Some((self.games_started, hand));
        let record = record.clone();
        let settings = euchre_analysis::Settings { worlds: REVIEW_WORLDS, seed: self.bot_seed };
        let (table, outbox) = (self.id.clone(), outbox.clone());
        answer_from_pool(outbox, id, move || {
            let analysis = euchre_analysis::analyse_hand(&record, hand, seat, &settings).ok()??;
            let mistake = euchre_analysis::biggest_mistake(&analysis).and_then(reviewed_choice);
            Some(Reply::Review { table, hand, mistake })
        });
        Ok(())
    }

    fn chat(&mut self, conn: ConnId, player: &PlayerInfo, text: String) -> Result<Reply, Refusal> {
        if !self.settings.chat {
            return Err(ErrorCode::ChatDisabled.into());
        }
        if !self.subscribers.contains_key(&conn) && self.seat_of(player).is_none() {
            return Err(ErrorCode::NotSeated.into());
        }
        let text = crate::text::chat_line(&text)?;
        if self.chat_kept.len() >= crate::social::CHAT_KEPT {
            self.chat_kept.pop_front();
        }
        let line = ChatLine { at: crate::clock::now_ms(), text: text.clone() };
        self.chat_kept.push_back((player.id.clone(), line));
        let (from, from_id) = (player.name.clone(), Some(player.id.clone()));
        self.publish(TableEvent::Table(TableNotice::Chat { from, text, from_id }));
        Ok(Reply::Done)
    }

    /// Files a report of `reported` by `player`, who sits or watches here,
    /// with the match in play and `reported`'s chat lines kept here: what
    /// the server saw, not what the reporter says. The answer goes out
    /// once the report is stored.
    #[expect(clippy::too_many_arguments, reason = "a command's parts, passed through")]
    fn report(
        &mut self,
        conn: ConnId,
        player: &PlayerInfo,
        outbox: &Outbox,
        id: euchre_protocol::CommandId,
        reported: &str,
        reason: euchre_protocol::ReportReason,
        details: String,
    ) -> Result<(), Refusal> {
        if !self.subscribers.contains_key(&conn) && self.seat_of(player).is_none() {
            return Err(ErrorCode::NotSeated.into());
        }
        let chat: Vec<ChatLine> = (self.chat_kept.iter())
            .filter(|(writer, _)| writer == reported)
            .map(|(_, line)| line.clone())
            .collect();
        let seated = self
            .seats
            .iter()
            .any(|s| matches!(&s.sitter, Some(Sitter::Human(p)) if p.id == reported));
        if reported == player.id || (!seated && chat.is_empty() && reported != self.host.id) {
            return Err(ErrorCode::NoSuchPlayer.into());
        }
        let Some(social) = self.config.social.clone() else {
            return Err(ErrorCode::Unavailable.into());
        };
        let mut report = crate::social::report(&player.id, reported, reason, details);
        report.table_id = Some(self.id.clone());
        report.match_id = self.match_id.clone();
        report.chat = chat;
        let outbox = outbox.clone();
        tokio::spawn(async move {
            let answer = match social.file(report).await {
                Ok(()) => ServerMessage::Ack { id, reply: Reply::Done },
                Err(refusal) => refusal.into_message(Some(id)),
            };
            outbox.send(answer);
        });
        Ok(())
    }

    pub(super) fn disconnected(&mut self, conn: ConnId) {
        let Some(gone) = self.subscribers.remove(&conn) else { return };
        let Viewer::Seat(seat) = gone.viewer else { return };
        let still_here = self.subscribers.values().any(|s| s.player_id == gone.player_id);
        if still_here {
            return;
        }
        self.seats[seat.index()].away_since = Some(Instant::now());
        let grace_ms = (self.status() == TableStatus::Playing)
            .then_some(self.config.reconnect_grace.as_millis() as u64);
        self.publish(TableEvent::Table(TableNotice::Presence {
            seat: seat.0,
            connected: false,
            grace_ms,
        }));
    }

    fn subscribe(&mut self, conn: ConnId, player: &PlayerInfo, outbox: &Outbox, viewer: Viewer) {
        if let Viewer::Seat(seat) = viewer {
            let state = &mut self.seats[seat.index()];
            if state.away_since.take().is_some() {
                // Back in time or late: either way the player plays again.
                if matches!(state.sitter, Some(Sitter::Human(_))) {
                    state.bot = None;
                }
                self.publish(TableEvent::Table(TableNotice::Presence {
                    seat: seat.0,
                    connected: true,
                    grace_ms: None,
                }));
            }
        }
        self.subscribers.insert(
            conn,
            Subscriber { viewer, player_id: player.id.clone(), outbox: outbox.clone() },
        );
    }
}

/// Works out command `id`'s reply on the blocking pool, off the table's
/// own task, and sends it from there: `unavailable` if the work finds no
/// answer or panics.
fn answer_from_pool(
    outbox: Outbox,
    id: euchre_protocol::CommandId,
    work: impl FnOnce() -> Option<Reply> + Send + 'static,
) {
    tokio::task::spawn_blocking(move || {
        let answer = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)) {
            Ok(Some(reply)) => ServerMessage::Ack { id, reply },
            _ => Refusal::from(ErrorCode::Unavailable).into_message(Some(id)),
        };
        outbox.send(answer);
    });
}

/// Worlds a hand's review deals per decision: as many as a hint's, a
/// fraction of a stored analysis's, so it comes back in a moment.
const REVIEW_WORLDS: u32 = 64;

/// A decision a review found wanting, with the best option (the first of
/// several as good): over the worlds where they were dealt, else with every
/// card shown, as [`euchre_analysis::biggest_mistake`] valued it.
fn reviewed_choice(
    decision: &euchre_analysis::Decision,
) -> Option<euchre_protocol::ReviewedChoice> {
    let first_best = |values: Vec<(Action, f64)>| {
        values.into_iter().rev().max_by(|a, b| a.1.total_cmp(&b.1)).map(|(action, _)| action)
    };
    let (better, points_lost, mark) = match (&decision.known, &decision.shown) {
        (Some(known), _) => {
            let values = known.options.iter().map(|o| (o.action, o.expected)).collect();
            (first_best(values)?, known.points_lost, known.mark)
        }
        (None, Some(shown)) => {
            let values = shown
                .options
                .iter()
                .map(|o| (o.action, f64::from(o.tricks) * 10.0 + o.points))
                .collect();
            (first_best(values)?, shown.points_lost, shown.mark)
        }
        (None, None) => return None,
    };
    let (index, chosen) = (decision.index, decision.chosen);
    Some(euchre_protocol::ReviewedChoice { index, chosen, better, points_lost, mark })
}
