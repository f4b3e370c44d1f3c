//! The search bots: Monte-Carlo search over worlds (deal the unseen cards
//! many ways, score each action in each deal, choose what does best on
//! average).
//!
//! Each decision gathers what the seat knows from its [`GameView`] (the
//! bot gets nothing else), deals worlds consistent with it
//! ([`world::Knowledge`]), and scores every legal action in every world by
//! the points it brings: the action, then the rest of the bidding and
//! discarding as the basic bot would do it (for every seat, holding that
//! world's cards), then the card play, either solved double-dummy by the
//! engine's [`Solver`] (every seat playing perfectly, as if it saw every
//! hand) or played out by the basic bot's cards for all four seats (each
//! from its own sight of the cards played), or a blend of the two. Bids,
//! discards, the card passed for best and each card played are all chosen
//! this way, in every form of the game.
//!
//! Medium is the reference perfect-information Monte-Carlo search: 50
//! worlds, each solved. Hard deals 320 worlds and plays each out: against
//! the basic bot that wins 2.3 points of win rate more than solving 80
//! (paired over 2,000 matches, BENCHMARKS.md). A solve credits every seat with sight of
//! the hidden cards, so it cannot tell a card that works only if the
//! others guess right from one that works whatever they hold; the play-out
//! is a step of improvement on a sound player's own play, and cheap enough
//! for four times the worlds.
//!
//! The play-outs can play a learned policy's cards instead of the basic
//! bot's ([`SearchSettings::net_play`], [`crate::policy`]): a network
//! trained to imitate hard's own card choices, each seat playing it from
//! its own sight within the world, so the search scores each action by a
//! stronger play of the rest of the hand at a few microseconds a card.
//!
//! A world counts for less when the others' bids in it are not the basic
//! bot's with its cards (hard does this), and optionally when their cards
//! played are not; the opponents can also be expected to play the basic
//! bot's cards to the trick in progress. BENCHMARKS.md measures each
//! setting; those not in the levels did not win there.

mod odds;
mod tree;
mod world;

use euchre_engine::sim::Solver;
use euchre_engine::{
    Action, Card, GameView, Hand, HandOutcome, NoEvents, Phase, PlayedHand, Rules, Seat, Viewer,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::policy::{self, Policy};
use crate::{BasicBot, Bot, choices};
use odds::GameOdds;
use tree::Tree;
pub use world::ViewWorlds;
use world::{Knowledge, Misses, PlaySoFar, World};

/// How hard a search bot thinks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchSettings {
    /// Worlds dealt for each decision.
    pub worlds: u32,
    /// Worlds for each decision before card play (bids, discards, the card
    /// passed for best), where they are more than `worlds`: these are few
    /// decisions, and the ones the search gains most by.
    pub bid_worlds: u32,
    /// The solver's transposition table: 2^`table_bits` slots, none for 0.
    pub table_bits: u32,
    /// How much less likely a world is for each bid in it that the basic
    /// bot would not have made with those cards: 1 ignores the bidding,
    /// smaller reads more into it.
    pub bid_miss: f64,
    /// The same for the partner's bids, who may not bid as the basic bot
    /// does (another search bot calls more often).
    pub partner_bid_miss: f64,
    /// The same for each card an opponent played that the basic bot would
    /// not have played with that world's cards (1 ignores the play).
    pub play_miss: f64,
    /// The same for the partner's cards.
    pub partner_play_miss: f64,
    /// Worlds dealt before choosing: the `worlds` likeliest of them (by the
    /// misses above) are solved, so more candidates read the others' bids
    /// and plays more sharply without more solving. At most `worlds` means
    /// every world dealt is solved.
    pub candidates: u32,
    /// In card play, the opponents still to play to the current trick play
    /// the basic bot's card in every world (the partner the best of his,
    /// the rest of the hand double-dummy as before): what a bot that expects
    /// ordinary play from its opponents does.
    pub model_trick: bool,
    /// Points taken off a bid that makes trump for the bot's side before it
    /// is compared with passing. A double-dummy solve plays the makers'
    /// cards as if they could see every hand, which flatters the side that
    /// chose trump for its own cards; this is the correction.
    pub make_margin: f64,
    /// Further points taken off going alone (the same bias, larger: a lone
    /// hand leans most on knowing where the cards are).
    pub alone_margin: f64,
    /// Value each outcome by the chance of winning the game it leaves
    /// (two-sided games; others count points): a point at 9 to 9 is worth
    /// more than a march, a loner near the end is worth no more than one
    /// point when one point wins.
    pub match_aware: bool,
    /// Points added to the basic bot's choice before play (bids, discards,
    /// the card passed for best): the search must beat the rule of thumb by
    /// this much to overrule it.
    pub basic_prior: f64,
    /// How the card play after a bid (or discard, or card passed) is played
    /// out in each world, from 0 to 1: the weight of a rollout in which all
    /// four seats play the basic bot's cards, against the double-dummy
    /// solve (0, every seat perfect). Real opponents are not perfect, and
    /// a solve plays every seat as if it saw the others' cards.
    pub bid_rollout: f64,
    /// The same for a card played: the weight of the play-out by the basic
    /// bot's cards for all four seats after it, against the solve. A card
    /// chosen by a play-out is a one-step improvement on the basic bot's
    /// play, which can neither see the hidden cards nor choose differently
    /// in worlds it cannot tell apart; a solved card assumes both.
    pub play_rollout: f64,
    /// In a play-out, the bot's own side (itself and its partner) plays,
    /// for its first `own_depth` choices, the card that does best over
    /// `own_worlds` worlds dealt from that seat's own sight inside the
    /// world, each played out by the basic bot: a second step of
    /// improvement. 0 worlds plays the basic bot's cards throughout.
    pub own_worlds: u32,
    /// See `own_worlds`.
    pub own_depth: u32,
    /// For the decisions before play (bids, discards, the card passed),
    /// search the bot's own later decisions as a tree over what it sees
    /// (information-set search, `tree`) instead of playing them as the
    /// basic bot: the rest of the hand is the tree's, then the basic bot's
    /// (or the learned policy's cards for the seats `net_play` names, in
    /// the tree for the others and past it for all), and the rollout,
    /// trick-model and own-search settings are not used.
    pub tree_bids: bool,
    /// The same for the decisions of card play.
    pub tree_play: bool,
    /// How widely the tree tries actions that have done worse so far: the
    /// UCB constant, in points of a hand.
    pub exploration: f64,
    /// Visits to a node of the tree before it tries anything but the basic
    /// bot's choice there: a node few worlds reach cannot tell a better
    /// card from a lucky one.
    pub tree_patience: u32,
    /// Worlds dealt afresh once the tree is grown, in which each action is
    /// valued by the tree's settled choices (each node's most tried action,
    /// no exploring, nothing learnt) instead of by the growing descents,
    /// whose values carry the tree's exploring and its first guesses at
    /// thin nodes. 0 values the actions by the descents themselves.
    pub tree_judge: u32,
    /// Who plays the learned policy's cards ([`crate::policy`]) in the
    /// play-outs instead of the basic bot's: nobody, the bot's own side, or
    /// all four seats (each from its own sight within the world). Where the
    /// policy does not cover the hand (no trump, fewer seats, a joker, a
    /// larger pack) the basic bot plays, as in hard.
    pub net_play: NetPlay,
}

/// Who plays the learned policy's cards in a search's play-outs
/// ([`SearchSettings::net_play`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NetPlay {
    Off,
    /// The bot and its partner.
    Own,
    All,
}

impl NetPlay {
    /// Whether `seat` plays the policy's cards in a search for the
    /// valuation's seat.
    fn plays(self, valuation: &Valuation, seat: Seat) -> bool {
        let rules = valuation.rules;
        match self {
            NetPlay::Off => false,
            NetPlay::Own => rules.team_of(seat) == rules.team_of(valuation.me),
            NetPlay::All => true,
        }
    }

    /// `network`'s card for `seat` in `hand`, if this setting has `seat`
    /// play it there and it has a choice.
    fn card(
        self,
        network: Option<&Policy>,
        hand: &Hand,
        cards: &PlaySoFar,
        seat: Seat,
        valuation: &Valuation,
        on: &mut Vec<u16>,
    ) -> Option<Card> {
        let network = network?;
        if !self.plays(valuation, seat) || hand.legal_plays().len() <= 1 {
            return None;
        }
        cards.net_card(hand, seat, network, on)
    }
}

impl SearchSettings {
    /// The reference PIMC: 50 worlds, plain alpha-beta, the bidding ignored.
    pub const MEDIUM: SearchSettings = SearchSettings {
        worlds: 50,
        bid_worlds: 0,
        table_bits: 0,
        bid_miss: 1.0,
        partner_bid_miss: 1.0,
        play_miss: 1.0,
        partner_play_miss: 1.0,
        candidates: 0,
        model_trick: false,
        make_margin: 0.0,
        alone_margin: 0.0,
        match_aware: false,
        basic_prior: 0.0,
        bid_rollout: 0.0,
        play_rollout: 0.0,
        own_worlds: 0,
        own_depth: 0,
        tree_bids: false,
        tree_play: false,
        exploration: 0.0,
        tree_patience: 0,
        tree_judge: 0,
        net_play: NetPlay::Off,
    };
    /// 320 worlds, reading the others' bids, and every action scored by
    /// the basic bot's play-out of the rest of the hand (reading the bids
    /// gave +1.7 points of win rate against basic over 2,000 matches,
    /// paired; playing out the cards +2.3 more, +1.0 to +3.6). The transposition
    /// table serves the rare play-out the basic bot cannot finish.
    pub const HARD: SearchSettings = SearchSettings {
        worlds: 320,
        bid_worlds: 320,
        table_bits: 14,
        bid_miss: 0.25,
        partner_bid_miss: 0.25,
        play_miss: 1.0,
        partner_play_miss: 1.0,
        candidates: 0,
        model_trick: false,
        make_margin: 0.0,
        alone_margin: 0.0,
        match_aware: false,
        basic_prior: 0.0,
        bid_rollout: 1.0,
        play_rollout: 1.0,
        own_worlds: 0,
        own_depth: 0,
        tree_bids: false,
        tree_play: false,
        exploration: 0.0,
        tree_patience: 0,
        tree_judge: 0,
        net_play: NetPlay::Off,
    };
    /// Hard's search with every seat's cards in the play-outs played by the
    /// learned policy ([`crate::policy`], trained to imitate hard's card
    /// play) instead of the basic bot's (`net_play`, all seats), the bids
    /// in them still the basic bot's. Against hard on fresh deals: +2.2
    /// points of win rate over 10,000 games, paired (+1.5 to +2.8); the
    /// policy for the bot's side alone ([`NetPlay::Own`]) +0.9 (+0.3 to
    /// +1.6) on other deals, though 2 points better than this against basic
    /// (BENCHMARKS.md, "Bots"). Where the policy
    /// does not cover the hand (no trump, fewer seats, a joker, a larger
    /// pack) it is hard. The information-set tree of the four rounds before
    /// (level with hard) stays an arena setting (`tree_bids`, `tree_play`,
    /// `exploration`).
    pub const EXPERT: SearchSettings =
        SearchSettings { net_play: NetPlay::All, ..SearchSettings::HARD };
}

/// A search bot: see the module documentation. Deterministic from its seed.
#[derive(Debug)]
pub struct SearchBot {
    settings: SearchSettings,
    rng: ChaCha8Rng,
    /// Made at the first decision and kept: its table stays valid from one
    /// decision to the next, and filling a new one each time costs more
    /// than a small search.
    solver: Option<Solver>,
    /// The game odds for the target last played to (match-aware only).
    odds: Option<GameOdds>,
    /// The network its play-outs play with `net_play` on: the committed one
    /// unless made [`SearchBot::with_policy`].
    policy: Option<&'static Policy>,
    /// For the rare view it cannot read (a spectator's) or the world it
    /// cannot deal.
    fallback: BasicBot,
}

/// The most nodes one decision's tree grows to (each under 200 bytes, so
/// under 2 MB): more than the expert's descents need (one new node a
/// descent at most; 320 worlds of up to 6 actions), so memory stays bounded
/// whatever the settings.
const TREE_NODES: usize = 8_192;

/// A tie between actions is broken by the tricks they take, worth this much
/// a trick against a point: more tricks are a margin against a wrong guess.
const TRICK_VALUE: f64 = 0.05;

impl SearchBot {
    pub fn new(settings: SearchSettings, seed: u64) -> SearchBot {
        SearchBot {
            settings,
            rng: ChaCha8Rng::seed_from_u64(seed),
            solver: None,
            odds: None,
            policy: policy::trained(),
            fallback: BasicBot::new(),
        }
    }

    /// The same with `network` in the play-outs, or the committed one for
    /// `None` (training and the arena: the expert of an earlier round as a
    /// teacher, a new network measured before it is committed).
    pub fn with_policy(
        settings: SearchSettings,
        seed: u64,
        network: Option<&'static Policy>,
    ) -> SearchBot {
        let bot = SearchBot::new(settings, seed);
        SearchBot { policy: network.or(bot.policy), ..bot }
    }

    /// The average value of each of `actions` over the worlds, or `None`
    /// when no world could be dealt.
    fn evaluate(&mut self, view: &GameView, actions: &[Action]) -> Option<Vec<f64>> {
        let knowledge = Knowledge::new(view)?;
        let Viewer::Seat(me) = view.viewer else { return None };
        let valuation = self.valuation(view, me);
        let table_bits = self.settings.table_bits;
        let solver = self.solver.get_or_insert_with(|| Solver::with_table_bits(table_bits));
        let misses = Misses {
            bid: self.settings.bid_miss,
            partner_bid: self.settings.partner_bid_miss,
            play: self.settings.play_miss,
            partner_play: self.settings.partner_play_miss,
        };
        let worlds = match view.phase {
            Phase::Playing => self.settings.worlds,
            _ => self.settings.worlds.max(self.settings.bid_worlds),
        };
        let wanted = worlds as usize;
        let dealt = self.settings.candidates.max(worlds);
        let mut worlds: Vec<World> =
            (0..dealt).filter_map(|_| knowledge.sample(&mut self.rng, &misses)).collect();
        if worlds.len() > wanted {
            // The likeliest, the earlier dealt first among equals.
            worlds.sort_by(|a, b| b.weight.total_cmp(&a.weight));
            worlds.truncate(wanted);
        }
        let model = Model {
            trick: self.settings.model_trick,
            rollout: self.settings.bid_rollout,
            play_rollout: self.settings.play_rollout,
        };
        let mut own = OwnSearch {
            worlds: self.settings.own_worlds,
            depth: self.settings.own_depth,
            rng: &mut self.rng,
            net: self.settings.net_play,
            policy: self.policy,
            on: Vec::new(),
        };
        // A tree lives for one decision: a bot between turns holds none.
        let searched_by_tree = match view.phase {
            Phase::Playing => self.settings.tree_play,
            _ => self.settings.tree_bids,
        };
        let players = tree::Players { net: self.settings.net_play, network: self.policy };
        let mut tree = searched_by_tree.then(|| {
            Tree::new(self.settings.exploration, self.settings.tree_patience, TREE_NODES)
                .with_players(players)
        });
        let mut totals = vec![0.0; actions.len()];
        let mut weights = 0.0;
        for world in &worlds {
            weights += world.weight;
            for (total, action) in totals.iter_mut().zip(actions) {
                let value = match tree.as_mut() {
                    Some(tree) => tree.value(world, &valuation, *action, solver),
                    None => value(world, &valuation, *action, solver, model, &mut own),
                };
                *total += world.weight * value;
            }
        }
        if let Some(tree) = tree.as_ref().filter(|_| self.settings.tree_judge > 0) {
            // Judge on worlds the tree did not learn from.
            totals.fill(0.0);
            weights = 0.0;
            for _ in 0..self.settings.tree_judge {
                let Some(world) = knowledge.sample(&mut self.rng, &misses) else { continue };
                weights += world.weight;
                for (total, action) in totals.iter_mut().zip(actions) {
                    *total += world.weight * tree.settled(&world, &valuation, *action, solver);
                }
            }
        }
        (weights > 0.0).then(|| {
            totals
                .into_iter()
                .zip(actions)
                .map(|(total, action)| total / weights - self.margin(*action))
                .collect()
        })
    }

    /// How this decision's outcomes are valued: by points, or by the chance
    /// of winning the game from the score they leave.
    fn valuation(&mut self, view: &GameView, me: Seat) -> Valuation {
        let rules = view.rules;
        let mine = rules.team_of(me);
        let game = (self.settings.match_aware && rules.teams() == 2).then(|| {
            let target = u32::from(rules.points_to_win);
            let odds = match self.odds.take() {
                Some(odds) if odds.target() == target => odds,
                _ => GameOdds::new(target),
            };
            let score = |team_is_mine: bool| {
                view.scores
                    .teams()
                    .filter(|(team, _)| (*team == mine) == team_is_mine)
                    .map(|(_, points)| u32::from(*points))
                    .sum::<u32>()
            };
            let game = GameScore { mine: score(true), theirs: score(false), odds: odds.clone() };
            self.odds = Some(odds);
            game
        });
        Valuation { rules, me, game }
    }

    /// What is taken off `action`'s average for the solver's optimism
    /// about the side that makes trump.
    fn margin(&self, action: Action) -> f64 {
        let (makes, alone) = match action {
            Action::OrderUp { alone }
            | Action::Call { alone, .. }
            | Action::CallNoTrump { alone } => (true, alone),
            _ => (false, false),
        };
        let settings = &self.settings;
        f64::from(u8::from(makes)) * settings.make_margin
            + f64::from(u8::from(alone)) * settings.alone_margin
    }
}

/// How one decision values a hand's outcome.
struct Valuation {
    rules: Rules,
    me: Seat,
    /// The game's score before this hand, where outcomes count by the chance
    /// of winning the game.
    game: Option<GameScore>,
}

struct GameScore {
    mine: u32,
    theirs: u32,
    odds: GameOdds,
}

impl Bot for SearchBot {
    fn choose(&mut self, view: &GameView, legal: &[Action]) -> Option<Action> {
        let actions: Vec<Action> = choices(legal).collect();
        if actions.len() <= 1 {
            return actions.first().copied();
        }
        if actions.contains(&Action::Claim) {
            // Offered only when it cannot fail: every trick, at once.
            return Some(Action::Claim);
        }
        let Some(mut values) = self.evaluate(view, &actions) else {
            return self.fallback.choose(view, legal);
        };
        if view.phase != Phase::Playing && self.settings.basic_prior != 0.0 {
            let basic = self.fallback.choose(view, legal);
            for (value, action) in values.iter_mut().zip(&actions) {
                if Some(*action) == basic {
                    *value += self.settings.basic_prior;
                }
            }
        }
        // The first of the best: the engine lists actions in a fixed order.
        first_best(&values).map(|i| actions[i]).or_else(|| self.fallback.choose(view, legal))
    }
}

/// How the others are expected to play in the worlds.
#[derive(Clone, Copy)]
struct Model {
    /// [`SearchSettings::model_trick`].
    trick: bool,
    /// [`SearchSettings::bid_rollout`].
    rollout: f64,
    /// [`SearchSettings::play_rollout`].
    play_rollout: f64,
}

/// What `action` by the valuation's seat is worth in `world`: see
/// [`score`]. With `model.trick`, a card played is followed by the basic
/// bot's cards for the opponents to the end of the trick ([`finish_trick`]);
/// an action before play is followed by the rest of the bidding, then the
/// card play solved, played out by the basic bot ([`rolled_out`]), or both
/// weighed by `model.rollout`.
fn value(
    world: &World,
    valuation: &Valuation,
    action: Action,
    solver: &mut Solver,
    model: Model,
    own: &mut OwnSearch,
) -> f64 {
    let mut after = world.hand;
    if after.apply_with(valuation.me, action, &mut NoEvents).is_err() {
        return f64::NEG_INFINITY;
    }
    if let Action::Play { card } = action {
        let mut cards = world.cards.clone();
        cards.record(&world.hand, valuation.me, card);
        if model.trick {
            return finish_trick(after, cards, world.hand.tricks_played(), valuation, solver);
        }
        return mixed(&after, &cards, model.play_rollout, valuation, solver, own);
    }
    bid_out(&mut after);
    mixed(&after, &world.cards, model.rollout, valuation, solver, own)
}

/// The value of `hand` solved and played out by the basic bot, weighed
/// `1 - rollout` and `rollout` (each computed only when it counts).
fn mixed(
    hand: &Hand,
    cards: &PlaySoFar,
    rollout: f64,
    valuation: &Valuation,
    solver: &mut Solver,
    own: &mut OwnSearch,
) -> f64 {
    let weight = rollout.clamp(0.0, 1.0);
    let mut total = 0.0;
    if weight < 1.0 {
        total += (1.0 - weight) * solved(hand, valuation, solver);
    }
    if weight > 0.0 {
        total += weight * rolled_out(hand, cards, valuation, solver, Some(own));
    }
    total
}

/// How the bot's own side chooses its cards in a play-out
/// ([`SearchSettings::own_worlds`]).
struct OwnSearch<'a> {
    worlds: u32,
    depth: u32,
    rng: &'a mut ChaCha8Rng,
    /// Who plays the learned policy's cards ([`SearchSettings::net_play`]).
    net: NetPlay,
    policy: Option<&'static Policy>,
    /// Room for the policy's features.
    on: Vec<u16>,
}

impl OwnSearch<'_> {
    /// The learned policy's card for `seat` in `hand`, if `seat` plays it
    /// and has a choice.
    fn net_card(
        &mut self,
        hand: &Hand,
        cards: &PlaySoFar,
        seat: Seat,
        valuation: &Valuation,
    ) -> Option<Card> {
        self.net.card(self.policy, hand, cards, seat, valuation, &mut self.on)
    }
}

/// The value of `hand` with every seat playing the basic bot's cards to the
/// end (`cards`: the cards played so far), or, with `own`, the bot's side
/// searching its first choices. Should the basic bot have no card to give,
/// the rest is solved.
fn rolled_out(
    hand: &Hand,
    cards: &PlaySoFar,
    valuation: &Valuation,
    solver: &mut Solver,
    mut own: Option<&mut OwnSearch>,
) -> f64 {
    let (mut hand, mut cards) = (*hand, cards.clone());
    let rules = valuation.rules;
    let mut searched = 0;
    while hand.phase() == Phase::Playing {
        let Some(seat) = hand.turn() else { break };
        let search = own.as_deref_mut().filter(|own| {
            own.worlds > 0
                && searched < own.depth
                && rules.team_of(seat) == rules.team_of(valuation.me)
                && hand.legal_plays().len() > 1
        });
        let chosen = match search {
            Some(own) => {
                searched += 1;
                own_card(&hand, &cards, seat, valuation, solver, own)
            }
            None => None,
        };
        let chosen =
            chosen.or_else(|| own.as_deref_mut()?.net_card(&hand, &cards, seat, valuation));
        let Some(card) = chosen.or_else(|| cards.basic_card(&hand, seat)) else { break };
        cards.record(&hand, seat, card);
        if hand.play_with(card, &mut NoEvents).is_err() {
            break;
        }
    }
    solved(&hand, valuation, solver)
}

/// The card `seat` (of the bot's side, to play in `hand`) does best with
/// over worlds of its own sight, each played out by the basic bot.
fn own_card(
    hand: &Hand,
    cards: &PlaySoFar,
    seat: Seat,
    valuation: &Valuation,
    solver: &mut Solver,
    own: &mut OwnSearch,
) -> Option<Card> {
    let plays: Vec<Card> = hand.legal_plays().iter().collect();
    let mut totals = vec![0.0; plays.len()];
    let mut dealt = 0;
    for _ in 0..own.worlds {
        let Some(world) = cards.redeal(hand, seat, own.rng) else { continue };
        dealt += 1;
        for (total, card) in totals.iter_mut().zip(&plays) {
            let (mut next, mut seen) = (world, cards.clone());
            seen.record(&world, seat, *card);
            *total += match next.play_with(*card, &mut NoEvents) {
                Ok(()) => rolled_out(&next, &seen, valuation, solver, None),
                Err(_) => f64::NEG_INFINITY,
            };
        }
    }
    let best = first_best(&totals)?;
    (dealt > 0).then(|| plays[best])
}

/// The index of the first of the highest `values` (ties go to the earlier).
fn first_best(values: &[f64]) -> Option<usize> {
    values
        .iter()
        .enumerate()
        .fold(None, |best: Option<(usize, f64)>, (i, v)| match best {
            Some((_, top)) if top >= *v => best,
            _ => Some((i, *v)),
        })
        .map(|(i, _)| i)
}

/// The rest of trick number `trick` (counted from 0) in `hand`: each
/// opponent plays the basic bot's card, the partner the best of his; then
/// the rest of the hand is solved.
fn finish_trick(
    hand: Hand,
    mut cards: PlaySoFar,
    trick: u8,
    valuation: &Valuation,
    solver: &mut Solver,
) -> f64 {
    let Some(seat) = hand.turn().filter(|_| hand.phase() == Phase::Playing) else {
        return solved(&hand, valuation, solver);
    };
    if hand.tricks_played() != trick {
        return solved(&hand, valuation, solver);
    }
    let rules = valuation.rules;
    if rules.team_of(seat) != rules.team_of(valuation.me) {
        let Some(card) = cards.basic_card(&hand, seat) else {
            return solved(&hand, valuation, solver);
        };
        let mut next = hand;
        cards.record(&hand, seat, card);
        if next.play_with(card, &mut NoEvents).is_err() {
            return solved(&hand, valuation, solver);
        }
        return finish_trick(next, cards, trick, valuation, solver);
    }
    hand.legal_plays()
        .iter()
        .map(|card| {
            let (mut next, mut cards) = (hand, cards.clone());
            cards.record(&hand, seat, card);
            if next.play_with(card, &mut NoEvents).is_err() {
                return f64::NEG_INFINITY;
            }
            finish_trick(next, cards, trick, valuation, solver)
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

/// The value of `hand` (in card play, or over) with best play by all.
fn solved(hand: &Hand, valuation: &Valuation, solver: &mut Solver) -> f64 {
    match solver.outcome(hand) {
        Some(outcome) => score(valuation, &outcome),
        None => 0.0,
    }
}

/// The rest of the bidding and discarding, each seat as the basic bot: how
/// a search finishes the auction in a world after the action it scores.
pub fn bid_out(hand: &mut Hand) {
    while hand.phase() != Phase::Playing {
        let Some(seat) = hand.turn() else { return };
        let Some(action) = world::expected_bid(hand, seat) else { return };
        if hand.apply_with(seat, action, &mut NoEvents).is_err() {
            return;
        }
    }
}

/// What an outcome is worth to the valuation's seat: [`outcome_value`],
/// or, match-aware, the chance of winning the game it adds, counted in
/// first points of the game, plus the same little for each trick.
fn score(valuation: &Valuation, outcome: &HandOutcome) -> f64 {
    let Some(game) = &valuation.game else {
        return outcome_value(&valuation.rules, valuation.me, outcome);
    };
    let HandOutcome::Played(played) = outcome else { return 0.0 };
    let mine = valuation.rules.team_of(valuation.me);
    let (mut ours, mut theirs) = (0, 0);
    for (team, points) in played.points.teams() {
        if team == mine {
            ours += u32::from(*points);
        } else {
            theirs += u32::from(*points);
        }
    }
    let before = game.odds.chance(game.mine, game.theirs);
    let after = game.odds.chance(game.mine + ours, game.theirs + theirs);
    (after - before) / game.odds.first_point() + trick_bonus(valuation.rules, valuation.me, played)
}

/// What a hand's outcome is worth to `seat`'s side, as every search (and
/// the arena's oracle) scores a world: the points it brings that side less
/// the others' (their average, without partners), plus a little for each
/// trick the side took (as makers) or kept from the makers, which breaks
/// ties between actions worth the same points (more tricks are a margin
/// against a wrong guess). A hand thrown in is worth nothing.
pub fn outcome_value(rules: &Rules, seat: Seat, outcome: &HandOutcome) -> f64 {
    let HandOutcome::Played(played) = outcome else { return 0.0 };
    let mine = rules.team_of(seat);
    let others = f64::from(rules.teams() - 1);
    let points: f64 = played
        .points
        .teams()
        .map(
            |(team, points)| {
                if team == mine { f64::from(*points) } else { -f64::from(*points) / others }
            },
        )
        .sum();
    points + trick_bonus(*rules, seat, played)
}

/// [`TRICK_VALUE`] for each trick `seat`'s side took as makers, or kept
/// from the makers.
fn trick_bonus(rules: Rules, seat: Seat, played: &PlayedHand) -> f64 {
    let mine = rules.team_of(seat);
    let tricks =
        if played.makers == mine { played.tricks[mine] } else { 5 - played.tricks[played.makers] };
    TRICK_VALUE * f64::from(tricks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use euchre_engine::{Event, Game, Preset};

    /// A tree kept to the decisions before play (`tree_bids` alone) leaves
    /// card play to the play-outs: every card it chooses is the one the
    /// same search without a tree chooses from the same seed, and some bid
    /// in these games is searched by the tree.
    #[test]
    fn a_tree_for_the_bids_leaves_the_cards_to_the_play_outs() {
        let plain = SearchSettings { worlds: 24, bid_worlds: 24, ..SearchSettings::HARD };
        let bids_only = SearchSettings { tree_bids: true, ..plain };
        let (mut cards, mut bids_differ) = (0, 0);
        for seed in 0..3 {
            let mut game = Game::new(Preset::Standard.rules(), seed).expect("valid rules");
            let mut bot = BasicBot::new();
            while let Some(seat) = game.turn() {
                let view = game.view(Viewer::Seat(seat));
                let legal = game.legal_actions(seat);
                let mut ours = SearchBot::new(bids_only, seed);
                let mut theirs = SearchBot::new(plain, seed);
                let (ours, theirs) = (ours.choose(&view, &legal), theirs.choose(&view, &legal));
                if view.phase == Phase::Playing {
                    assert_eq!(ours, theirs, "seed {seed}");
                    cards += 1;
                } else {
                    bids_differ += usize::from(ours != theirs);
                }
                let action = bot.choose(&view, &legal).expect("a choice");
                game.apply(seat, action).expect("legal");
            }
        }
        assert!(cards > 100, "{cards} cards");
        // Not a measure of strength: only that the bids do go through the tree.
        assert!(bids_differ > 0, "the tree changed no bid");
    }

    /// The play-out that scores a bid with `bid_rollout` is the basic bot's
    /// own card play: from the first card of each hand of basic bots'
    /// games, it comes to the outcome the bots' real play does.
    #[test]
    fn the_rollout_plays_as_the_basic_bot() {
        let rules = Preset::Standard.rules();
        let mut solver = Solver::with_table_bits(0);
        let mut checked = 0;
        for seed in 0..6 {
            let mut game = Game::new(rules, seed).expect("valid rules");
            let mut bots: Vec<BasicBot> = (0..4).map(|_| BasicBot::new()).collect();
            let mut expected = None;
            while let Some(seat) = game.turn() {
                let valuation = Valuation { rules, me: seat, game: None };
                if expected.is_none() && game.hand().phase() == Phase::Playing {
                    let rolled = rolled_out(
                        game.hand(),
                        &PlaySoFar::default(),
                        &valuation,
                        &mut solver,
                        None,
                    );
                    expected = Some((valuation, rolled));
                }
                let legal = game.legal_actions(seat);
                let view = game.view(Viewer::Seat(seat));
                let action = bots[seat.index()].choose(&view, &legal).expect("a choice");
                for event in game.apply(seat, action).expect("legal") {
                    if let Event::HandEnded { outcome, .. } = event
                        && let Some((valuation, rolled)) = expected.take()
                    {
                        assert_eq!(score(&valuation, &outcome), rolled, "seed {seed}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 30, "{checked} hands");
    }
}
