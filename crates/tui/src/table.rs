//! A table as this client knows it: the server's snapshot, then each event
//! applied in seq order. The server is the authority on what is legal (the
//! `YourTurn` prompt lists it); this only keeps the picture up to date: the
//! hand, the tricks, whose turn it is, the score. It follows the engine's
//! hand (crates/engine/src/hand.rs) so that `turn` and `phase` match the
//! server's without another snapshot.

use euchre_client::DealWatch;
use euchre_engine::view::{TrickView, sorted_for_display};
use euchre_engine::{
    Action, Card, Event, GameResult, GameView, HandOutcome, LonerLead, PerTeam, Phase,
    RubberResult, Rules, Seat, Suit, Team, Viewer,
};
use euchre_protocol::{
    Occupant, RematchVote, SeatRating, TableEvent, TableId, TableNotice, TableState, TableSummary,
};

/// The name the server gives a tournament's tables as their host.
const TOURNAMENT_HOST: &str = "Tournament";

/// One line of chat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatLine {
    pub from: String,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TableModel {
    pub id: TableId,
    pub seq: u64,
    /// The seq of the last event that moved the game (or of the snapshot):
    /// a prompt stands until it changes.
    pub moved_at: u64,
    pub summary: TableSummary,
    pub seats: Vec<Option<Occupant>>,
    pub your_seat: Option<u8>,
    /// The game in progress or just over; `None` before the first deal.
    pub game: Option<GameView>,
    /// The legal actions while it is this client's turn: exactly the
    /// server's, replaced by each prompt and cleared by every event.
    pub prompt: Option<Vec<Action>>,
    pub chat: Vec<ChatLine>,
    /// Playing rubbers: a game was won and the next deal starts the scores again.
    pub between_games: bool,
    pub rubber: Option<RubberResult>,
    /// The trick just completed, kept to show until the next card is led.
    pub last_trick: Option<TrickView>,
    /// How the hand on the table ended. The game view's `last_outcome` is
    /// the hand before it (as the server's view has it), so this is kept
    /// here until the next deal.
    pub hand_result: Option<HandOutcome>,
    /// The deal's commitment, and the last reveal as checked here.
    pub deals: DealWatch,
    /// Each seat's new rating after the last rated game at this table. It
    /// comes a moment after `game_won` (after a quick rematch has begun).
    pub rated: Option<Vec<SeatRating>>,
    /// Why the last game at this rated table was not rated, if it was not.
    pub unrated: Option<String>,
    /// At a table without a host (quick play's), who asked for a rematch:
    /// the players ask, nobody hosts. `None` at a hosted table.
    pub rematch_vote: Option<RematchVote>,
}

impl TableModel {
    pub fn from_snapshot(table: TableId, seq: u64, state: TableState) -> TableModel {
        let deals = DealWatch::from_snapshot(&state);
        let prompt = (!state.actions.is_empty()).then_some(state.actions);
        let last_trick = state
            .game
            .as_ref()
            .and_then(|game| game.tricks.last().filter(|trick| trick.winner.is_some()).cloned());
        TableModel {
            id: table,
            seq,
            moved_at: seq,
            summary: state.summary,
            seats: state.seats,
            your_seat: state.your_seat,
            game: state.game,
            prompt,
            chat: Vec::new(),
            between_games: false,
            rubber: None,
            last_trick,
            hand_result: None,
            deals,
            rated: None,
            unrated: None,
            rematch_vote: state.rematch_vote,
        }
    }

    /// A new snapshot of the same table (after a reconnection whose missed
    /// events are gone): what only this client keeps (the chat, the last
    /// ratings and deal checked) stays.
    pub fn replace(&mut self, seq: u64, state: TableState) {
        let chat = std::mem::take(&mut self.chat);
        let rated = self.rated.take();
        let unrated = self.unrated.take();
        let mut deals = self.deals.clone();
        deals.snapshot(&state);
        *self = TableModel::from_snapshot(self.id.clone(), seq, state);
        self.chat = chat;
        self.rated = rated;
        self.unrated = unrated;
        self.deals = deals;
    }

    /// A practice table for this client: seated, every other seat a bot
    /// (so the game is never rated), and not a tournament's (hosted by the
    /// tournament, whose tables the server refuses hints at).
    pub fn practice(&self) -> bool {
        let Some(mine) = self.your_seat else { return false };
        let others_bots = (0u8..)
            .zip(&self.seats)
            .filter(|(seat, _)| *seat != mine)
            .all(|(_, occupant)| matches!(occupant, Some(Occupant::Bot { .. })));
        others_bots && self.summary.host != TOURNAMENT_HOST
    }

    /// This client's rating after the last rated game, if it played.
    pub fn your_rating(&self) -> Option<&SeatRating> {
        let seat = self.your_seat?;
        self.rated.as_ref()?.iter().find(|rating| rating.seat == seat)
    }

    pub fn rules(&self) -> &Rules {
        &self.summary.rules
    }

    pub fn players(&self) -> u8 {
        self.summary.rules.players
    }

    /// The match is over: the game won (the rubber, playing rubbers).
    pub fn finished(&self) -> bool {
        self.game.as_ref().is_some_and(|game| game.winner.is_some())
    }

    /// Applies one event (`None`: one this client may not see). Events at or
    /// below the current seq were seen already and are skipped.
    pub fn apply(&mut self, seq: u64, event: Option<TableEvent>) {
        if seq <= self.seq {
            return;
        }
        self.seq = seq;
        self.deals.event(event.as_ref());
        // What moves the game makes the prompt stale (the server sends a
        // fresh one if it is still this client's turn); a table's notice (a
        // rating, a deal's seal, chat) leaves it standing, and no new one comes.
        if euchre_client::moves_game(event.as_ref()) {
            self.moved_at = seq;
            self.prompt = None;
        }
        match event {
            None => {}
            Some(TableEvent::Table(notice)) => self.apply_notice(notice),
            Some(TableEvent::Game(event)) => self.apply_game(event),
        }
    }

    fn apply_notice(&mut self, notice: TableNotice) {
        match notice {
            TableNotice::SeatTaken { seat, occupant } => {
                if let Some(slot) = self.seats.get_mut(usize::from(seat)) {
                    *slot = Some(occupant);
                }
                self.count_seated();
            }
            TableNotice::SeatLeft { seat } => {
                if let Some(slot) = self.seats.get_mut(usize::from(seat)) {
                    *slot = None;
                }
                if self.your_seat == Some(seat) {
                    self.your_seat = None;
                }
                self.count_seated();
            }
            TableNotice::Presence { seat, connected, .. } => {
                if let Some(Some(Occupant::Player { connected: now, .. })) =
                    self.seats.get_mut(usize::from(seat))
                {
                    *now = connected;
                }
            }
            TableNotice::GameStarted { rules, .. } => {
                self.summary.rules = rules;
                self.summary.status = euchre_protocol::TableStatus::Playing;
                self.seats.resize(usize::from(rules.players), None);
                // The first deal follows and builds the new game's view.
                self.game = None;
                self.between_games = false;
                self.rubber = None;
                self.last_trick = None;
                // The last game's rating, if it has come; one that comes
                // later is still shown, as the last game's.
                self.rated = None;
                self.unrated = None;
                if let Some(vote) = &mut self.rematch_vote {
                    *vote = RematchVote::default();
                }
            }
            TableNotice::Chat { from, text, .. } => self.chat.push(ChatLine { from, text }),
            TableNotice::Rated { ratings, .. } => self.rated = Some(ratings),
            TableNotice::Unrated { message, .. } => self.unrated = Some(message),
            TableNotice::RematchVote { asked, deadline_ms } => {
                self.rematch_vote = Some(RematchVote { asked, deadline_ms });
            }
            // Checked by `deals`, which sees every event.
            TableNotice::DealCommitted { .. } | TableNotice::DealRevealed { .. } => {}
        }
    }

    fn count_seated(&mut self) {
        self.summary.seated = self.seats.iter().flatten().count() as u8;
    }

    fn viewer(&self) -> Viewer {
        match self.your_seat {
            Some(seat) => Viewer::Seat(Seat(seat)),
            None => Viewer::Spectator,
        }
    }

    fn apply_game(&mut self, event: Event) {
        let me = self.your_seat.map(Seat);
        if let Event::HandDealt { number, dealer, up_card, hands } = event {
            let rules = self.summary.rules;
            let mut game = self.game.take().unwrap_or_else(|| new_game(rules, self.viewer()));
            if self.between_games {
                game.scores = PerTeam::new(rules.teams());
                self.between_games = false;
            }
            let own = me.map(|seat| hands.get(seat.index()).map(|set| set.to_vec()));
            let own = own.map(Option::unwrap_or_default);
            deal(&mut game, number, dealer, up_card, own);
            if let Some(outcome) = self.hand_result.take() {
                game.last_outcome = Some(outcome);
            }
            self.game = Some(game);
            return;
        }
        let Some(game) = self.game.as_mut() else { return };
        match event {
            Event::CardPlayed { .. } => self.last_trick = None,
            Event::GameWon { team, scores } if game.rules.rubber => {
                self.between_games = true;
                game.games.push(GameResult {
                    winner: team,
                    scores,
                    rubber_points: rubber_points(team, scores),
                });
            }
            Event::RubberWon { result, .. } => self.rubber = Some(result),
            Event::HandEnded { outcome, .. } => self.hand_result = Some(outcome),
            _ => {}
        }
        apply_game_event(game, event, me);
        if let Event::TrickWon { .. } = event {
            self.last_trick = game.tricks.last().cloned();
        }
    }
}

/// Sheet 003: a game won is worth 3 rubber points when the losers scored
/// 0, 2 when they scored 1 or 2, 1 otherwise.
fn rubber_points(winner: Team, scores: PerTeam<u16>) -> u8 {
    let losers = scores.teams().filter(|(team, _)| *team != winner).map(|(_, s)| *s).max();
    match losers.unwrap_or(0) {
        0 => 3,
        1 | 2 => 2,
        _ => 1,
    }
}

/// A game before its first deal (the `hand_dealt` that follows fills it in).
fn new_game(rules: Rules, viewer: Viewer) -> GameView {
    GameView {
        viewer,
        rules,
        hand_number: 0,
        dealer: Seat(0),
        phase: Phase::OrderingUp,
        turn: None,
        scores: PerTeam::new(rules.teams()),
        winner: None,
        games: Vec::new(),
        up_card: Card::JOKER,
        joker_suit: None,
        up_card_picked_up: false,
        turned_down: None,
        trump: None,
        no_trump: false,
        maker: None,
        alone: false,
        sitting_out: None,
        lone_defender: None,
        hand: None,
        hand_sizes: [0; 4],
        discard: None,
        passed_card: None,
        loner_discard: None,
        bids: Vec::new(),
        tricks: Vec::new(),
        tricks_won: PerTeam::new(rules.teams()),
        dummy_taken: false,
        dummy_discards: None,
        last_outcome: None,
    }
}

/// A new hand: everything of the last one forgotten but the score.
fn deal(game: &mut GameView, number: u32, dealer: Seat, up_card: Card, own: Option<Vec<Card>>) {
    let rules = game.rules;
    let players = rules.players;
    let joker_up = up_card.is_joker();
    game.hand_number = number;
    game.dealer = dealer;
    game.phase = if joker_up { Phase::NamingJokerSuit } else { Phase::OrderingUp };
    game.turn = Some(if joker_up { dealer } else { dealer.next(players) });
    game.up_card = up_card;
    game.joker_suit = None;
    game.up_card_picked_up = false;
    game.turned_down = None;
    game.trump = None;
    game.no_trump = false;
    game.maker = None;
    game.alone = false;
    game.sitting_out = None;
    game.lone_defender = None;
    game.hand = own.map(|cards| sorted_for_display(cards, None));
    game.hand_sizes = [0; 4];
    for seat in Seat::all(players) {
        game.hand_sizes[seat.index()] = rules.hand_size() as u8;
    }
    game.discard = None;
    game.passed_card = None;
    game.loner_discard = None;
    game.bids.clear();
    game.tricks.clear();
    game.tricks_won = PerTeam::new(rules.teams());
    game.dummy_taken = false;
    game.dummy_discards = None;
}

fn resort(game: &mut GameView) {
    if let Some(hand) = game.hand.take() {
        game.hand = Some(sorted_for_display(hand, game.trump));
    }
}

fn remove_from_hand(game: &mut GameView, card: Card) {
    if let Some(hand) = game.hand.as_mut() {
        hand.retain(|held| *held != card);
    }
}

fn add_to_hand(game: &mut GameView, card: Card) {
    if let Some(hand) = game.hand.as_mut() {
        hand.push(card);
    }
    resort(game);
}

fn shrink(game: &mut GameView, seat: Seat) {
    if let Some(size) = game.hand_sizes.get_mut(seat.index()) {
        *size = size.saturating_sub(1);
    }
}

fn grow(game: &mut GameView, seat: Seat) {
    if let Some(size) = game.hand_sizes.get_mut(seat.index()) {
        *size += 1;
    }
}

/// Seats out of this hand's play: a loner's partner, a lone defender's.
fn sits_out(game: &GameView, seat: Seat) -> bool {
    game.sitting_out == Some(seat) || game.lone_defender.is_some_and(|d| d.partner() == seat)
}

/// The next seat clockwise that takes part in play.
fn next_active(game: &GameView, seat: Seat) -> Seat {
    let players = game.rules.players;
    let mut next = seat.next(players);
    for _ in 0..players {
        if !sits_out(game, next) {
            break;
        }
        next = next.next(players);
    }
    next
}

fn begin_play(game: &mut GameView) {
    let leader = match (game.rules.loner_lead, game.maker) {
        (LonerLead::LeftOfLoner, Some(maker)) if game.alone => next_active(game, maker),
        _ => next_active(game, game.dealer),
    };
    game.phase = Phase::Playing;
    game.turn = Some(leader);
}

/// Trump is made and the dealer has discarded, if he picked up: as the
/// engine's `after_trump`. `best_done`: call for best is over.
fn after_trump(game: &mut GameView, best_done: bool) {
    let rules = game.rules;
    let Some(maker) = game.maker else { return };
    if rules.dummy && !game.alone {
        // `dummy_taken` follows and moves to the maker's discards.
        return;
    }
    if game.alone && rules.partnerships() {
        let partner = maker.partner();
        if rules.call_for_best && !best_done {
            game.phase = Phase::PassingBest;
            game.turn = Some(partner);
            return;
        }
        game.sitting_out = Some(partner);
        if rules.defend_alone {
            game.phase = Phase::DefendingAlone;
            game.turn = Some(maker.next(rules.players));
            return;
        }
    }
    begin_play(game);
}

fn award_rest(game: &mut GameView, team: Team) {
    let played = game.tricks.iter().filter(|trick| trick.winner.is_some()).count() as u8;
    let rest = (game.rules.hand_size() as u8).saturating_sub(played);
    if team.index() < game.tricks_won.len() {
        game.tricks_won[team] += rest;
    }
    game.phase = Phase::Finished;
    game.turn = None;
}

/// One game event, as `me` (a seat, or nobody for a spectator) sees it.
pub fn apply_game_event(game: &mut GameView, event: Event, me: Option<Seat>) {
    let rules = game.rules;
    let players = rules.players;
    match event {
        Event::HandDealt { number, dealer, up_card, hands } => {
            let own = me.map(|seat| hands.get(seat.index()).map(|set| set.to_vec()));
            deal(game, number, dealer, up_card, own.map(Option::unwrap_or_default));
        }
        Event::JokerSuitNamed { dealer, suit } => {
            game.joker_suit = Some(suit);
            game.phase = Phase::OrderingUp;
            game.turn = Some(dealer.next(players));
        }
        Event::Passed { seat } => {
            game.bids.push((seat, Action::Pass));
            if game.phase == Phase::DefendingAlone {
                let first = game.maker.map(|maker| maker.next(players));
                if first == Some(seat) {
                    game.turn = Some(seat.next(players).next(players));
                } else {
                    begin_play(game);
                }
            } else if seat != game.dealer {
                game.turn = Some(seat.next(players));
            } else if game.phase == Phase::Calling {
                // Thrown in: `hand_ended` follows.
                game.turn = None;
            }
        }
        Event::UpCardTurnedDown { card } => {
            game.turned_down =
                Some(game.joker_suit.filter(|_| card.is_joker()).unwrap_or(card.suit()));
            game.phase = Phase::Calling;
            game.turn = Some(game.dealer.next(players));
        }
        Event::TrumpMade { seat, suit, alone } => {
            let round_one = game.phase == Phase::OrderingUp;
            let bid =
                if round_one { Action::OrderUp { alone } } else { Action::Call { suit, alone } };
            game.bids.push((seat, bid));
            game.trump = Some(suit);
            game.maker = Some(seat);
            game.alone = alone;
            resort(game);
            // In round one `up_card_picked_up` follows (the dealer discards),
            // unless his partner went alone where the rules spare him.
            let spared = alone
                && rules.partnerships()
                && seat.partner() == game.dealer
                && !rules.dealer_picks_up_for_partner_loner;
            if !round_one || spared {
                after_trump(game, false);
            }
        }
        Event::NoTrumpCalled { seat, alone } => {
            game.bids.push((seat, Action::CallNoTrump { alone }));
            game.trump = None;
            game.no_trump = true;
            game.maker = Some(seat);
            game.alone = alone;
            resort(game);
            after_trump(game, false);
        }
        Event::UpCardPickedUp { dealer, card } => {
            game.phase = Phase::DealerDiscard;
            game.turn = Some(dealer);
            grow(game, dealer);
            if me == Some(dealer) {
                add_to_hand(game, card);
            }
        }
        Event::Discarded { seat, card } => {
            shrink(game, seat);
            let mine = me == Some(seat);
            if let Some(card) = card.filter(|_| mine) {
                remove_from_hand(game, card);
            }
            match game.phase {
                Phase::DummyDiscard => {
                    if let Some(card) = card.filter(|_| mine) {
                        // In card order, as the engine's set of them lists them.
                        let discards = game.dummy_discards.get_or_insert_with(Vec::new);
                        discards.push(card);
                        discards.sort();
                    }
                    let discarded = ((rules.hand_size() + rules.dummy_size()) as u8)
                        .saturating_sub(game.hand_sizes[seat.index()]);
                    if u32::from(discarded) >= rules.dummy_size() {
                        begin_play(game);
                    }
                }
                Phase::LonerDiscard => {
                    if mine {
                        game.loner_discard = card;
                    }
                    after_trump(game, true);
                }
                _ => {
                    if mine {
                        game.discard = card;
                    }
                    // The engine counts the up-card as picked up once the dealer has discarded.
                    game.up_card_picked_up = true;
                    after_trump(game, false);
                }
            }
        }
        Event::SitsOut { seat } => {
            if game.sitting_out.is_none() && game.lone_defender.is_none() {
                game.sitting_out = Some(seat);
            }
            if game.turn == Some(seat) {
                game.turn = Some(next_active(game, seat));
            }
        }
        Event::DefendsAlone { seat } => {
            game.lone_defender = Some(seat);
            game.bids.push((seat, Action::DefendAlone));
            begin_play(game);
        }
        Event::CardPassed { from, to, card } => {
            shrink(game, from);
            grow(game, to);
            if let Some(card) = card {
                if me == Some(from) {
                    remove_from_hand(game, card);
                }
                if me == Some(to) {
                    add_to_hand(game, card);
                }
                game.passed_card = Some(card);
            }
            game.phase = Phase::LonerDiscard;
            game.turn = Some(to);
        }
        Event::DummyTaken { seat, cards } => {
            game.dummy_taken = true;
            for _ in 0..rules.dummy_size() {
                grow(game, seat);
            }
            if let Some(cards) = cards.filter(|_| me == Some(seat)) {
                for card in cards {
                    add_to_hand(game, card);
                }
                game.dummy_discards = Some(Vec::new());
            }
            game.phase = Phase::DummyDiscard;
            game.turn = Some(seat);
        }
        Event::CardPlayed { seat, card } => {
            let new_trick = game.tricks.last().is_none_or(|trick| trick.winner.is_some());
            if new_trick {
                game.tricks.push(TrickView { leader: seat, cards: Vec::new(), winner: None });
            }
            if let Some(trick) = game.tricks.last_mut() {
                trick.cards.push((seat, card));
            }
            shrink(game, seat);
            if me == Some(seat) {
                remove_from_hand(game, card);
            }
            game.turn = Some(next_active(game, seat));
        }
        Event::TrickWon { seat, number } => {
            if let Some(trick) = game.tricks.last_mut() {
                trick.winner = Some(seat);
            }
            let team = rules.team_of(seat);
            if team.index() < game.tricks_won.len() {
                game.tricks_won[team] += 1;
            }
            game.turn = (u32::from(number) < rules.hand_size()).then_some(seat);
        }
        Event::Claimed { seat, .. } => award_rest(game, rules.team_of(seat)),
        Event::Conceded { seat } => {
            // To the next side clockwise that is not the conceder's, as the engine does.
            let mut taker = seat.next(players);
            while rules.team_of(taker) == rules.team_of(seat) {
                taker = taker.next(players);
            }
            award_rest(game, rules.team_of(taker));
        }
        Event::HandEnded { outcome, scores } => {
            game.scores = scores;
            if let HandOutcome::Played(played) = outcome {
                game.tricks_won = played.tricks;
            }
            game.phase = Phase::Finished;
            game.turn = None;
        }
        Event::GameWon { team, scores } => {
            game.scores = scores;
            game.turn = None;
            // A rubber is over only at `rubber_won`.
            if !rules.rubber {
                game.winner = Some(team);
            }
        }
        Event::RubberWon { team, .. } => {
            game.winner = Some(team);
            game.turn = None;
        }
    }
    game.turned_down = turned_down(game);
}

/// The turned-down suit as the engine's view has it: during round two, and
/// in play after a round-two call.
fn turned_down(game: &GameView) -> Option<Suit> {
    let up_suit = match game.joker_suit {
        Some(suit) if game.up_card.is_joker() => suit,
        _ => game.up_card.suit(),
    };
    match game.phase {
        Phase::Calling => Some(up_suit),
        Phase::Playing | Phase::Finished if game.maker.is_some() && game.trump != Some(up_suit) => {
            Some(up_suit)
        }
        _ => None,
    }
}
