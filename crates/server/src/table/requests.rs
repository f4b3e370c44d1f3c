//! What a connection asks of a table: to sit, watch, resume, leave, start
//! a game or a rematch, act or chat; and what its going away changes.

use euchre_engine::{Action, Seat, Viewer};
use euchre_protocol::{
    ErrorCode, Occupant, PlayerInfo, Refusal, Reply, ServerMessage, TableEvent, TableNotice,
    TableStatus,
};
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
        let result = match request {
            Request::Sit { seat, invite } => self.sit(conn, &player, &outbox, seat, invite),
            Request::Watch { invite } => self.watch(conn, &player, &outbox, invite),
            Request::Resume { last_seq } => self.resume(conn, &player, &outbox, last_seq),
            Request::Leave => self.leave(conn, &player),
            Request::Start => self.start(&player, false),
            Request::Rematch => self.start(&player, true),
            Request::Act(action) => self.act(&player, action),
            Request::Chat(text) => self.chat(conn, &player, text),
            Request::Matched => return,
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
    ) -> Result<Reply, Refusal> {
        self.check_invite(invite.as_deref())?;
        if self.seat_of(player).is_some() {
            return Err(ErrorCode::AlreadySeated.into());
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
        self.seats[index] = SeatState {
            sitter: Some(Sitter::Bot(self.bot_kind)),
            bot: Some(self.bot_kind.create(self.bot_seed ^ u64::from(seat_number))),
            away_since: None,
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
        Ok(Reply::Done)
    }

    fn act(&mut self, player: &PlayerInfo, action: Action) -> Result<Reply, Refusal> {
        let seat = self.seat_of(player).ok_or(ErrorCode::NotSeated)?;
        self.apply(seat, action)?;
        Ok(Reply::Done)
    }

    fn chat(&mut self, conn: ConnId, player: &PlayerInfo, text: String) -> Result<Reply, Refusal> {
        if !self.settings.chat {
            return Err(ErrorCode::ChatDisabled.into());
        }
        if !self.subscribers.contains_key(&conn) && self.seat_of(player).is_none() {
            return Err(ErrorCode::NotSeated.into());
        }
        let text = crate::text::chat_line(&text)?;
        self.publish(TableEvent::Table(TableNotice::Chat { from: player.name.clone(), text }));
        Ok(Reply::Done)
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
