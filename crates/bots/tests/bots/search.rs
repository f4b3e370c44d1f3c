//! The search bots: legal in every form, deterministic, and stronger than
//! the basic bot (the arena crate measures by how much).

use euchre_bots::{Bot, SearchBot, SearchSettings};
use euchre_engine::{Game, Preset, Rules};

use crate::play_out;

/// The search as the levels run it, but with few worlds: the same code
/// paths, quickly.
const QUICK: SearchSettings = SearchSettings { worlds: 6, table_bits: 10, bid_miss: 0.25 };
const QUICK_PLAIN: SearchSettings = SearchSettings { worlds: 6, table_bits: 0, bid_miss: 1.0 };

/// Every preset and the options that change bidding or play: a game to
/// five between search bots, every action checked against the engine.
#[test]
fn search_bots_choose_legal_actions_in_every_form() {
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
    let rule_sets = Preset::ALL.map(|preset| preset.rules()).into_iter().chain(options);
    for (n, rules) in rule_sets.enumerate() {
        let rules = Rules { points_to_win: 5, ..rules };
        let settings = if n % 2 == 0 { QUICK } else { QUICK_PLAIN };
        let mut bots: [Box<dyn Bot>; 4] =
            [0u64, 1, 2, 3].map(|seat| Box::new(SearchBot::new(settings, seat)) as Box<dyn Bot>);
        let mut game = Game::new(rules, n as u64).expect("valid rules");
        play_out(&mut game, &mut bots);
        assert!(game.winner().is_some(), "{rules:?}");
    }
}
