//! The search bots: legal in every form, deterministic, and stronger than
//! the basic bot (the arena crate measures by how much).

use euchre_bots::{Bot, NetPlay, PolicyBot, SearchBot, SearchSettings};
use euchre_engine::{Game, Preset, Rules};

use crate::play_out;

/// The search as the levels run it, but with few worlds: the same code
/// paths (for hard, the basic bot's play-out for bids and cards), quickly.
const QUICK: SearchSettings =
    SearchSettings { worlds: 6, bid_worlds: 12, table_bits: 10, ..SearchSettings::HARD };
const QUICK_PLAIN: SearchSettings = SearchSettings { worlds: 6, ..SearchSettings::MEDIUM };
/// With the bidding corrections and the game's score taken into account.
const QUICK_SCORED: SearchSettings =
    SearchSettings { make_margin: 0.5, alone_margin: 1.0, match_aware: true, ..QUICK };
/// The bot's own side searching its cards inside the play-outs.
const QUICK_NESTED: SearchSettings = SearchSettings { own_worlds: 3, own_depth: 2, ..QUICK };
/// More worlds for the bids, reading the others' cards as well as their
/// bids (the partner's apart), from more worlds dealt than solved, and
/// expecting the basic bot's cards from the opponents in the trick being
/// played.
const QUICK_READING: SearchSettings = SearchSettings {
    bid_worlds: 10,
    partner_bid_miss: 0.5,
    play_miss: 0.1,
    partner_play_miss: 0.5,
    candidates: 18,
    model_trick: true,
    ..QUICK
};

/// The tree search over the bot's own later decisions (an arena setting,
/// once the expert), with few worlds.
const QUICK_TREE: SearchSettings =
    SearchSettings { tree_bids: true, tree_play: true, exploration: 0.3, ..QUICK };

/// The learned policy plays the cards in the play-outs: the bot's side's,
/// or everybody's.
const QUICK_NET_OWN: SearchSettings = SearchSettings { net_play: NetPlay::Own, ..QUICK };
/// All seats: the expert's settings, with few worlds.
const QUICK_EXPERT: SearchSettings =
    SearchSettings { worlds: 6, bid_worlds: 12, table_bits: 10, ..SearchSettings::EXPERT };

/// Every preset, and the options that change bidding or play.
fn every_form() -> impl Iterator<Item = Rules> {
    let standard = Preset::Standard.rules();
    let options = [
        Rules { joker: true, ..standard },
        Rules { allow_no_trump: true, ..standard },
        Rules {
            allow_no_trump: true,
            all_pass: euchre_engine::AllPass::StickTheDealer,
            ..standard
        },
        Rules { dealer_picks_up_for_partner_loner: false, ..standard },
        Rules { canadian_loner: true, defend_alone: true, call_for_best: true, ..standard },
        Rules { farmers_hand: true, ..standard },
    ];
    Preset::ALL.map(|preset| preset.rules()).into_iter().chain(options)
}

/// A game to five between search bots in every form, every action checked
/// against the engine.
#[test]
fn search_bots_choose_legal_actions_in_every_form() {
    for (n, rules) in every_form().enumerate() {
        let rules = Rules { points_to_win: 5, ..rules };
        let settings = [QUICK, QUICK_PLAIN, QUICK_SCORED, QUICK_READING, QUICK_NESTED][n % 5];
        let mut bots: [Box<dyn Bot>; 4] =
            [0u64, 1, 2, 3].map(|seat| Box::new(SearchBot::new(settings, seat)) as Box<dyn Bot>);
        let mut game = Game::new(rules, n as u64).expect("valid rules");
        play_out(&mut game, &mut bots);
        assert!(game.winner().is_some(), "{rules:?}");
    }
}

/// The learned policy, alone and in the play-outs (the expert's), in every form (it
/// covers only the four-handed game with a trump suit and falls back on
/// the basic bot elsewhere): every action legal, a search bot with the
/// policy in its play-outs and the policy alone against hard.
#[test]
fn the_learned_policy_chooses_legal_actions_in_every_form() {
    for (n, rules) in every_form().enumerate() {
        let rules = Rules { points_to_win: 5, ..rules };
        let settings = [QUICK_NET_OWN, QUICK_EXPERT][n % 2];
        let mut bots: [Box<dyn Bot>; 4] = [0u64, 1, 2, 3].map(|seat| match seat {
            0 => Box::new(SearchBot::new(settings, seat)) as Box<dyn Bot>,
            1 => Box::new(PolicyBot::new()),
            _ => Box::new(SearchBot::new(QUICK, seat)),
        });
        let mut game = Game::new(rules, n as u64).expect("valid rules");
        play_out(&mut game, &mut bots);
        assert!(game.winner().is_some(), "{rules:?}");
    }
}

/// The information-set tree (once the expert, now an arena setting) in every form: its bids, discards, cards passed and
/// cards played (inside the tree, too, which only the engine's own legal
/// actions feed) are all legal, two trees against two hard bots.
#[test]
fn the_tree_search_chooses_legal_actions_in_every_form() {
    for (n, rules) in every_form().enumerate() {
        let rules = Rules { points_to_win: 5, ..rules };
        let mut bots: [Box<dyn Bot>; 4] = [0u64, 1, 2, 3].map(|seat| {
            let settings = if seat % 2 == 0 { QUICK_TREE } else { QUICK };
            Box::new(SearchBot::new(settings, seat)) as Box<dyn Bot>
        });
        let mut game = Game::new(rules, 100 + n as u64).expect("valid rules");
        play_out(&mut game, &mut bots);
        assert!(game.winner().is_some(), "{rules:?}");
    }
}

/// The bot sees only its seat's view: deal the other seats' cards
/// differently (the same hand for the seat to bid, the same up-card) and the
/// hard bot and the expert, each seeded alike, make the same first bid,
/// whatever it is.
#[test]
fn the_hidden_cards_do_not_change_the_choice() {
    use euchre_bots::BotKind;
    use euchre_engine::{Deal, Viewer};
    let rules = Preset::Standard.rules();
    let mut bids = std::collections::HashSet::new();
    for seed in 0..24 {
        let game = Game::new(rules, seed).expect("valid rules");
        let deal = *game.hand().deal();
        // Seats 1 and 3 swap hands, and seat 2 trades cards with the kitty.
        let seat = game.turn().expect("a seat to bid");
        let mut hands = deal.hands;
        let (left, right) = (seat.next(4).index(), seat.next(4).next(4).next(4).index());
        hands.swap(left, right);
        let partner = seat.partner().index();
        let (out, into) = (hands[partner].first(), deal.kitty.first());
        let mut kitty = deal.kitty;
        if let (Some(out), Some(into)) = (out, into) {
            hands[partner].remove(out);
            hands[partner].insert(into);
            kitty.remove(into);
            kitty.insert(out);
        }
        let other = Deal { hands, kitty, ..deal };
        other.validate(&rules).expect("a valid deal");
        for kind in [BotKind::Hard, BotKind::Expert] {
            let mut choices = Vec::new();
            for deal in [deal, other] {
                let game = Game::with_deals(rules, seed, game.start().clone(), vec![deal])
                    .expect("a game");
                let view = game.view(Viewer::Seat(seat));
                let legal = game.legal_actions(seat);
                choices.push(kind.create(seed).choose(&view, &legal));
            }
            assert_eq!(choices[0], choices[1], "{kind} seed {seed}");
            bids.insert(format!("{kind} {:?}", choices[0]));
        }
    }
    assert!(bids.len() > 2, "the bids vary with the seat's own cards: {bids:?}");
}
