//! Information-set tree search over the bot's own later choices: the
//! expert level.
//!
//! Hard scores each action in each world by the basic bot's play of the
//! rest of the hand, its own later cards included: a one-step improvement
//! on basic. A double-dummy solve instead lets the bot's later choices
//! differ between worlds it cannot tell apart (strategy fusion). This keeps
//! the worlds and the pairing of hard (every action of the decision is
//! scored in every world) and grows a tree of the bot's own later
//! decisions, each node keyed by what the seat has seen since the decision
//! (its own actions, the others' bids and cards; not their hidden
//! discards), so one node holds every world the seat cannot tell apart and
//! its choice there is one choice for all of them. At each node the seat
//! picks by UCB over the worlds that reached it (an action counts the
//! visits in which it was legal, as single-observer ISMCTS does); the
//! others play the basic bot's bids and cards, each from its own sight
//! within the world, which is exact against basic and the model hard uses
//! against anyone. Past the tree, every seat plays as the basic bot. With
//! `net_play`, the seats it names play the learned policy's cards instead,
//! wherever the tree does not choose ([`Players`]), as in hard's play-outs.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use euchre_engine::sim::Solver;
use euchre_engine::{Action, Hand, NoEvents, Phase, Seat};

use super::world::{PlaySoFar, World, expected_bid};
use super::{NetPlay, Valuation, solved};
use crate::policy::Policy;

/// The key of the decision itself: nothing seen since.
const ROOT: u64 = 0x9e37_79b9_7f4a_7c15;

/// The tree of one decision: the seat's later decisions, by what it has
/// seen on the way to each. Bounded: past `limit` nodes it grows no more
/// (the descents play on as the basic bot).
#[derive(Debug)]
pub(super) struct Tree {
    nodes: HashMap<u64, Node>,
    exploration: f64,
    /// Visits to a node before it tries anything but the basic bot's choice.
    patience: u32,
    limit: usize,
    /// Who plays the learned policy's cards where the tree does not choose.
    players: Players,
}

/// How the seats play where the tree does not choose (the others in it,
/// everyone past it, the seat's first try at a new node): the basic bot,
/// or the learned policy's cards for the seats `net` names.
#[derive(Clone, Copy, Debug)]
pub(super) struct Players {
    pub(super) net: NetPlay,
    pub(super) network: Option<&'static Policy>,
}

impl Players {
    /// The basic bot for every seat.
    pub(super) const BASIC: Players = Players { net: NetPlay::Off, network: None };

    /// `seat`'s action in `hand`: the learned policy's card where `net`
    /// names the seat and it has a choice, else the basic bot's.
    fn action(
        &self,
        hand: &Hand,
        cards: &mut PlaySoFar,
        seat: Seat,
        valuation: &Valuation,
        on: &mut Vec<u16>,
    ) -> Option<Action> {
        let net = (hand.phase() == Phase::Playing)
            .then(|| self.net.card(self.network, hand, cards, seat, valuation, on))
            .flatten();
        net.map(|card| Action::Play { card }).or_else(|| basic(hand, cards, seat))
    }
}

#[derive(Debug, Default)]
struct Node {
    visits: u32,
    edges: Vec<Edge>,
}

/// One action at a node, with what it brought in the worlds it was tried.
#[derive(Debug)]
struct Edge {
    action: Action,
    visits: u32,
    /// The worlds' weights summed, and their values so weighed.
    weight: f64,
    total: f64,
    /// Visits to the node in which this action was legal.
    available: u32,
}

impl Edge {
    fn mean(&self) -> f64 {
        if self.weight > 0.0 { self.total / self.weight } else { 0.0 }
    }
}

/// What the seat does at one of its decisions inside a descent.
enum Choice {
    /// The action at a node of the tree (the edge's index), and whether the
    /// descent leaves the tree after it (the action had not been tried).
    Node { key: u64, edge: usize, action: Action, leaves: bool },
    /// No choice worth a node (one legal action), or out of the tree.
    Policy,
}

impl Tree {
    pub(super) fn new(exploration: f64, patience: u32, limit: usize) -> Tree {
        Tree { nodes: HashMap::new(), exploration, patience, limit, players: Players::BASIC }
    }

    /// The same with `players` where the tree does not choose.
    pub(super) fn with_players(self, players: Players) -> Tree {
        Tree { players, ..self }
    }

    /// How many nodes the tree holds.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// One descent: `action` by the valuation's seat in `world`, the rest
    /// of the hand through the tree and past it, and what it brought, which
    /// each node on the way learns (weighed by the world's weight).
    pub(super) fn value(
        &mut self,
        world: &World,
        valuation: &Valuation,
        action: Action,
        solver: &mut Solver,
    ) -> f64 {
        let me = valuation.me;
        let (mut hand, mut cards) = (world.hand, world.cards.clone());
        if !step(&mut hand, &mut cards, me, action) {
            return f64::NEG_INFINITY;
        }
        let mut key = observe(ROOT, me, action);
        let mut path: Vec<(u64, usize)> = Vec::new();
        let mut in_tree = true;
        let mut on = Vec::new();
        while !hand.is_finished() {
            let Some(seat) = hand.turn() else { break };
            let choice = if seat == me && in_tree {
                self.choose(key, &hand, &mut cards, valuation, &mut on)
            } else {
                Choice::Policy
            };
            let next = match choice {
                Choice::Node { key, edge, action, leaves } => {
                    path.push((key, edge));
                    in_tree = !leaves;
                    Some(action)
                }
                Choice::Policy => self.players.action(&hand, &mut cards, seat, valuation, &mut on),
            };
            let Some(next) = next else { break };
            if !step(&mut hand, &mut cards, seat, next) {
                break;
            }
            if seat == me || is_public(next) {
                key = observe(key, seat, next);
            }
        }
        let value = solved(&hand, valuation, solver);
        for (key, edge) in path {
            if let Some(edge) = self.nodes.get_mut(&key).and_then(|node| node.edges.get_mut(edge)) {
                edge.visits += 1;
                edge.weight += world.weight;
                edge.total += world.weight * value;
            }
        }
        value
    }

    /// What `action` brings in `world` with the seat's later choices the
    /// tree's settled ones ([`Tree::settled_choice`]) and basic's past it;
    /// the tree learns nothing.
    pub(super) fn settled(
        &self,
        world: &World,
        valuation: &Valuation,
        action: Action,
        solver: &mut Solver,
    ) -> f64 {
        let me = valuation.me;
        let (mut hand, mut cards) = (world.hand, world.cards.clone());
        if !step(&mut hand, &mut cards, me, action) {
            return f64::NEG_INFINITY;
        }
        let mut key = Some(observe(ROOT, me, action));
        let mut on = Vec::new();
        while !hand.is_finished() {
            let Some(seat) = hand.turn() else { break };
            let settled =
                key.filter(|_| seat == me).and_then(|key| self.settled_choice(key, &hand));
            let next = settled
                .or_else(|| self.players.action(&hand, &mut cards, seat, valuation, &mut on));
            let Some(next) = next else { break };
            if !step(&mut hand, &mut cards, seat, next) {
                break;
            }
            if seat == me || is_public(next) {
                key = key.map(|key| observe(key, seat, next));
            }
        }
        solved(&hand, valuation, solver)
    }

    /// The tree's settled choice at node `key`: the legal action tried
    /// most there (the better on average among equals), or `None` where
    /// the tree has no node.
    fn settled_choice(&self, key: u64, hand: &Hand) -> Option<Action> {
        let node = self.nodes.get(&key)?;
        let me = hand.turn()?;
        let legal = hand.legal_actions(me);
        node.edges
            .iter()
            .filter(|edge| edge.visits > 0 && legal.contains(&edge.action))
            .max_by(|a, b| a.visits.cmp(&b.visits).then(a.mean().total_cmp(&b.mean())))
            .map(|edge| edge.action)
    }

    /// The seat's choice at the node `key` in `hand`: an untried action
    /// first (its players' choice before the others, and only it for the
    /// first `patience` visits), then by UCB.
    fn choose(
        &mut self,
        key: u64,
        hand: &Hand,
        cards: &mut PlaySoFar,
        valuation: &Valuation,
        on: &mut Vec<u16>,
    ) -> Choice {
        let me = valuation.me;
        let legal: Vec<Action> = hand
            .legal_actions(me)
            .iter()
            .copied()
            .filter(|action| !matches!(action, Action::Concede | Action::Claim))
            .collect();
        if legal.len() <= 1 {
            return Choice::Policy;
        }
        if !self.nodes.contains_key(&key) && self.nodes.len() >= self.limit {
            return Choice::Policy;
        }
        let node = self.nodes.entry(key).or_default();
        for action in &legal {
            match node.edges.iter_mut().find(|edge| edge.action == *action) {
                Some(edge) => edge.available += 1,
                None => node.edges.push(Edge {
                    action: *action,
                    visits: 0,
                    weight: 0.0,
                    total: 0.0,
                    available: 1,
                }),
            }
        }
        node.visits += 1;
        let first = self.players.action(hand, cards, me, valuation, on);
        if node.visits <= self.patience
            && let Some(edge) = node.edges.iter().position(|edge| Some(edge.action) == first)
        {
            // Too few worlds here yet to overrule the rule of thumb.
            let leaves = node.visits == 1;
            return Choice::Node { key, edge, action: node.edges[edge].action, leaves };
        }
        let is_legal = |edge: &Edge| legal.contains(&edge.action);
        let untried = |edge: &Edge| is_legal(edge) && edge.visits == 0;
        if node.edges.iter().any(untried) {
            let edge = node
                .edges
                .iter()
                .position(|edge| untried(edge) && Some(edge.action) == first)
                .or_else(|| node.edges.iter().position(untried));
            if let Some(edge) = edge {
                return Choice::Node { key, edge, action: node.edges[edge].action, leaves: true };
            }
        }
        let exploration = self.exploration;
        let ucb = |edge: &Edge| {
            let bonus = (f64::from(edge.available).ln() / f64::from(edge.visits)).sqrt();
            edge.mean() + exploration * bonus
        };
        let best = node.edges.iter().enumerate().filter(|(_, edge)| is_legal(edge)).fold(
            None,
            |best: Option<(usize, f64)>, (i, edge)| {
                let value = ucb(edge);
                match best {
                    Some((_, top)) if top >= value => best,
                    _ => Some((i, value)),
                }
            },
        );
        match best {
            Some((edge, _)) => {
                Choice::Node { key, edge, action: node.edges[edge].action, leaves: false }
            }
            None => Choice::Policy,
        }
    }
}

/// The basic bot's action for `seat` in `hand`, from what it has seen
/// (`cards`).
fn basic(hand: &Hand, cards: &mut PlaySoFar, seat: Seat) -> Option<Action> {
    if hand.phase() == Phase::Playing {
        cards.basic_card(hand, seat).map(|card| Action::Play { card })
    } else {
        expected_bid(hand, seat)
    }
}

/// `action` by `seat` applied to `hand`, the cards seen kept up to date;
/// `false` if the engine refuses it.
fn step(hand: &mut Hand, cards: &mut PlaySoFar, seat: Seat, action: Action) -> bool {
    if let Action::Play { card } = action {
        cards.record(hand, seat, card);
        return hand.play_with(card, &mut NoEvents).is_ok();
    }
    hand.apply_with(seat, action, &mut NoEvents).is_ok()
}

/// Whether every seat sees `action` taken: all but the dealer's discard
/// and the card passed to a loner, which only they (and the loner) see.
fn is_public(action: Action) -> bool {
    !matches!(action, Action::Discard { .. } | Action::PassCard { .. })
}

/// The key after `key` of `action` by `seat`.
fn observe(key: u64, seat: Seat, action: Action) -> u64 {
    let mut hasher = DefaultHasher::new();
    key.hash(&mut hasher);
    seat.index().hash(&mut hasher);
    action.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::NetPlay;
    use crate::search::world::{Knowledge, Misses};
    use crate::{BasicBot, Bot};
    use euchre_engine::{Game, Preset, Rules, Viewer};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// The first decision of card play in a game of basic bots, for `seed`.
    fn first_card(seed: u64) -> (Game, Seat) {
        let mut game = Game::new(Preset::Standard.rules(), seed).expect("valid rules");
        let mut bot = BasicBot::new();
        while let Some(seat) = game.turn() {
            if game.hand().phase() == Phase::Playing {
                return (game, seat);
            }
            let view = game.view(Viewer::Seat(seat));
            let action = bot.choose(&view, &game.legal_actions(seat)).expect("a choice");
            game.apply(seat, action).expect("legal");
        }
        unreachable!("every hand reaches card play or is thrown in before");
    }

    /// Descents over `worlds` worlds for every card the seat may lead.
    fn grow(tree: &mut Tree, game: &Game, seat: Seat, worlds: usize) -> usize {
        let view = game.view(Viewer::Seat(seat));
        let knowledge = Knowledge::new(&view).expect("a seat's view");
        let misses = Misses { bid: 1.0, partner_bid: 1.0, play: 1.0, partner_play: 1.0 };
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let valuation = Valuation { rules: Rules::default(), me: seat, game: None };
        let mut solver = Solver::with_table_bits(0);
        let actions: Vec<Action> = game.legal_actions(seat).iter().copied().collect();
        let mut descents = 0;
        for _ in 0..worlds {
            let world = knowledge.sample(&mut rng, &misses).expect("a world");
            for action in &actions {
                if *action == Action::Concede {
                    continue;
                }
                let value = tree.value(&world, &valuation, *action, &mut solver);
                assert!(value.is_finite(), "{action:?}");
                descents += 1;
            }
        }
        descents
    }

    /// With more patience than descents, the tree plays its players'
    /// choices throughout: each descent is worth exactly hard's play-out
    /// of the same action in the same world with the same players (the
    /// basic bot, or the learned policy for the bot's side or for all), at
    /// the first bid and the first card alike.
    #[test]
    fn a_patient_tree_plays_out_as_hard_does() {
        let network = crate::policy::trained();
        assert!(network.is_some(), "the committed network loads");
        let values: Vec<Vec<f64>> = [NetPlay::Off, NetPlay::Own, NetPlay::All]
            .into_iter()
            .map(|net| patient_tree_plays_out_as_hard_does(Players { net, network }))
            .collect();
        // The same worlds each time: the players do make a difference.
        assert_ne!(values[0], values[1]);
        assert_ne!(values[1], values[2]);
    }

    /// The descents' values, having checked each against hard's.
    fn patient_tree_plays_out_as_hard_does(players: Players) -> Vec<f64> {
        use crate::search::{Model, OwnSearch, value as hard_value};
        let misses = Misses { bid: 1.0, partner_bid: 1.0, play: 1.0, partner_play: 1.0 };
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let mut solver = Solver::with_table_bits(0);
        let model = Model { trick: false, rollout: 1.0, play_rollout: 1.0 };
        let mut values = Vec::new();
        for seed in 0..4 {
            let (played, at_play) = first_card(seed);
            let bidding = Game::new(Preset::Standard.rules(), seed).expect("valid rules");
            let first = bidding.turn().expect("a bid");
            for (game, seat) in [(&bidding, first), (&played, at_play)] {
                let view = game.view(Viewer::Seat(seat));
                let knowledge = Knowledge::new(&view).expect("a seat's view");
                let valuation = Valuation { rules: view.rules, me: seat, game: None };
                let mut tree = Tree::new(1.0, u32::MAX, usize::MAX).with_players(players);
                for _ in 0..10 {
                    let world = knowledge.sample(&mut rng, &misses).expect("a world");
                    for action in game.legal_actions(seat).iter().copied() {
                        if action == Action::Concede {
                            continue;
                        }
                        let mut own = OwnSearch {
                            worlds: 0,
                            depth: 0,
                            rng: &mut rng.clone(),
                            net: players.net,
                            policy: players.network,
                            on: Vec::new(),
                        };
                        let hard =
                            hard_value(&world, &valuation, action, &mut solver, model, &mut own);
                        let grown = tree.value(&world, &valuation, action, &mut solver);
                        assert_eq!(grown, hard, "{:?} seed {seed} {action:?}", players.net);
                        // Having tried basic's choice alone, it settles on it.
                        let settled = tree.settled(&world, &valuation, action, &mut solver);
                        assert_eq!(settled, hard, "{:?} seed {seed} {action:?}", players.net);
                        values.push(grown);
                    }
                }
            }
        }
        assert!(values.len() > 100, "{}", values.len());
        values
    }

    /// Worlds the seat cannot tell apart share its nodes: fewer nodes than
    /// descents, and never more than the limit.
    #[test]
    fn the_tree_is_keyed_by_what_the_seat_sees_and_bounded() {
        let (game, seat) = first_card(3);
        let mut tree = Tree::new(1.0, 0, usize::MAX);
        let descents = grow(&mut tree, &game, seat, 60);
        assert!(tree.len() > 0 && tree.len() < descents, "{} nodes, {descents}", tree.len());
        // Judging by the settled choices learns nothing.
        let before = tree.len();
        let view = game.view(Viewer::Seat(seat));
        let knowledge = Knowledge::new(&view).expect("a seat's view");
        let misses = Misses { bid: 1.0, partner_bid: 1.0, play: 1.0, partner_play: 1.0 };
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let valuation = Valuation { rules: Rules::default(), me: seat, game: None };
        let mut solver = Solver::with_table_bits(0);
        for _ in 0..20 {
            let world = knowledge.sample(&mut rng, &misses).expect("a world");
            for action in game.legal_actions(seat).iter().copied() {
                let value = tree.settled(&world, &valuation, action, &mut solver);
                assert!(value.is_finite() || action == Action::Concede, "{action:?}");
            }
        }
        assert_eq!(tree.len(), before);
        let mut small = Tree::new(1.0, 0, 8);
        grow(&mut small, &game, seat, 60);
        assert_eq!(small.len(), 8);
    }
}
