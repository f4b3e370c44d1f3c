//! Every bot, in every preset, always picks a legal action and games end.

use euchre_bots::{Bot, BotKind};
use euchre_engine::{Game, Preset, Rules};

use crate::play_out;

const GAMES_PER_PRESET: u64 = 100;

fn table(kinds: [BotKind; 4], seed: u64) -> [Box<dyn Bot>; 4] {
    [0, 1, 2, 3].map(|seat| kinds[seat].create(seed * 4 + seat as u64))
}

#[test]
fn bots_always_choose_legal_actions_and_games_end() {
    let line_ups = [
        [BotKind::Random; 4],
        [BotKind::Basic; 4],
        [BotKind::Basic, BotKind::Random, BotKind::Basic, BotKind::Random],
    ];
    // Every preset, and the options that change how cards are played.
    let standard = Preset::Standard.rules();
    let options = [
        ("joker", Rules { joker: true, ..standard }),
        ("no trump", Rules { allow_no_trump: true, ..standard }),
        ("rubber", Rules { rubber: true, points_to_win: 5, ..standard }),
    ];
    let rule_sets = Preset::ALL.map(|preset| (preset.name(), preset.rules())).into_iter();
    for (name, rules) in rule_sets.chain(options) {
        for kinds in line_ups {
            for seed in 0..GAMES_PER_PRESET {
                let mut game = Game::new(rules, seed).expect("the rules are valid");
                play_out(&mut game, &mut table(kinds, seed));
                assert!(game.winner().is_some(), "{name} {kinds:?} seed {seed}");
            }
        }
    }
}

#[test]
fn the_same_seeds_play_the_same_game() {
    for kind in BotKind::ALL {
        let records: Vec<_> = (0..2)
            .map(|_| {
                let mut game = Game::new(Preset::Standard.rules(), 5).expect("valid rules");
                play_out(&mut game, &mut table([kind; 4], 5));
                game.record().clone()
            })
            .collect();
        assert_eq!(records[0], records[1], "{kind}");
    }
}
