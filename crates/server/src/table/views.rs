//! What each receiver sees: every event numbered, kept in the ring and
//! projected for each viewer (a seat sees its own cards, nobody else's),
//! snapshots of the whole table, the prompt to act, the lobby's summary.

use euchre_engine::Viewer;
use euchre_protocol::{Occupant, ServerMessage, TableEvent, TableState};
use tokio::time::Instant;

use super::{ConnId, Outbox, Sitter, Table};
use crate::frame::Frame;

impl Table {
    /// Gives `event` the next seq, keeps it, and sends each subscriber its view of it.
    pub(super) fn publish(&mut self, event: TableEvent) {
        self.seq += 1;
        let seq = self.seq;
        // Most events (a card played, a trick won, a pass) hide nothing:
        // what a spectator sees is the event itself, so everyone sees it.
        let public = project(&event, Viewer::Spectator).as_ref() == Some(&event);
        let messages = if public { self.one_frame(seq, &event) } else { self.views(seq, &event) };
        self.delivery.staged.extend(messages);
        // Room is made first, so the ring never grows past its size.
        while self.ring.len() >= self.config.event_ring.max(1) {
            self.ring.pop_front();
        }
        self.ring.push_back((seq, event));
    }

    /// `event` in one frame for every subscriber, encoded once.
    fn one_frame(&self, seq: u64, event: &TableEvent) -> Vec<(ConnId, Outbox, Frame)> {
        if self.subscribers.is_empty() {
            return Vec::new();
        }
        let message =
            ServerMessage::Event { table: self.id.clone(), seq, event: Some(event.clone()) };
        let frame = Frame::new(message);
        (self.subscribers.iter())
            .map(|(conn, subscriber)| (*conn, subscriber.outbox.clone(), frame.clone()))
            .collect()
    }

    /// Each subscriber's view of `event`: viewers who see it alike share one
    /// frame, encoded once.
    fn views(&self, seq: u64, event: &TableEvent) -> Vec<(ConnId, Outbox, Frame)> {
        let mut messages = Vec::with_capacity(self.subscribers.len());
        let mut frames: Vec<(Viewer, Frame)> = Vec::new();
        for (conn, subscriber) in &self.subscribers {
            let viewer = subscriber.viewer;
            let frame = match frames.iter().find(|(seen, _)| *seen == viewer) {
                Some((_, frame)) => frame.clone(),
                None => {
                    let view = project(event, viewer);
                    let alike = frames.iter().find(|(_, frame)| {
                        matches!(frame.message(), Some(ServerMessage::Event { event, .. }) if *event == view)
                    });
                    let frame = match alike {
                        Some((_, frame)) => frame.clone(),
                        None => Frame::new(ServerMessage::Event {
                            table: self.id.clone(),
                            seq,
                            event: view,
                        }),
                    };
                    frames.push((viewer, frame.clone()));
                    frame
                }
            };
            messages.push((*conn, subscriber.outbox.clone(), frame));
        }
        messages
    }

    pub(super) fn project_message(
        &self,
        seq: u64,
        event: &TableEvent,
        viewer: Viewer,
    ) -> ServerMessage {
        ServerMessage::Event { table: self.id.clone(), seq, event: project(event, viewer) }
    }

    pub(super) fn send_snapshot(&mut self, conn: ConnId) {
        if let Some(subscriber) = self.subscribers.get(&conn) {
            let state = self.state_for(subscriber.viewer);
            let snapshot = ServerMessage::Snapshot {
                table: self.id.clone(),
                seq: self.seq,
                state: Box::new(state),
            };
            let outbox = subscriber.outbox.clone();
            self.delivery.stage(conn, &outbox, snapshot);
        }
    }

    /// Everything `viewer` may know of the table now.
    pub fn state_for(&self, viewer: Viewer) -> TableState {
        let seats = self
            .seats
            .iter()
            .map(|state| match &state.sitter {
                Some(Sitter::Human(player)) => Some(Occupant::Player {
                    player: player.clone(),
                    connected: state.away_since.is_none(),
                }),
                Some(Sitter::Bot(kind)) => Some(Occupant::Bot { bot: kind.name().to_owned() }),
                None => None,
            })
            .collect();
        let your_seat = match viewer {
            Viewer::Seat(seat) => Some(seat.0),
            Viewer::Spectator => None,
        };
        let actions = match (viewer, &self.game) {
            (Viewer::Seat(seat), Some(game)) if game.turn() == Some(seat) => {
                game.legal_actions(seat).to_vec()
            }
            _ => Vec::new(),
        };
        TableState {
            summary: self.summary(),
            seats,
            your_seat,
            game: self.game.as_ref().map(|game| game.view(viewer)),
            deal_commitment: self.game.as_ref().and_then(|game| {
                game.record().hands.last().and_then(|hand| hand.seal).map(|seal| seal.commitment)
            }),
            actions,
            rematch_vote: super::hostless(&self.host).then(|| self.rematch_vote()),
            stood_in: match viewer {
                Viewer::Seat(seat) => self.seats[seat.index()].stood_in.clone(),
                Viewer::Spectator => None,
            },
        }
    }

    /// After anything changed: prompt the seat to act and refresh the lobby.
    pub(super) fn after_change(&mut self) {
        if let Some(game) = &self.game
            && let Some(turn) = game.turn()
        {
            let actions = game.legal_actions(turn);
            let deadline_ms = self.turn_deadline().map(|deadline| {
                deadline.saturating_duration_since(Instant::now()).as_millis() as u64
            });
            let prompts: Vec<(ConnId, Outbox)> = self
                .subscribers
                .iter()
                .filter(|(_, s)| s.viewer == Viewer::Seat(turn))
                .map(|(conn, s)| (*conn, s.outbox.clone()))
                .collect();
            for (conn, outbox) in prompts {
                let prompt = ServerMessage::YourTurn {
                    table: self.id.clone(),
                    seq: self.seq,
                    actions: actions.to_vec(),
                    deadline_ms,
                };
                self.delivery.stage(conn, &outbox, prompt);
            }
        }
        if !self.listed.as_ref().is_some_and(|listed| self.lists_as(listed)) {
            let summary = self.summary();
            self.listed = Some(summary.clone());
            self.registry.update(summary);
        }
    }
}

/// `event` as `viewer` may see it; `None` makes a placeholder.
pub fn project(event: &TableEvent, viewer: Viewer) -> Option<TableEvent> {
    match event {
        TableEvent::Game(event) => Some(TableEvent::Game(event.for_viewer(viewer))),
        TableEvent::Table(notice) => Some(TableEvent::Table(notice.clone())),
    }
}
