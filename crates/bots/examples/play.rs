//! Plays and prints a whole game between bots.
//!
//! `cargo run -p euchre-bots --example play -- [SEED] [PRESET] [BOT]`
//!
//! The bots (`naive` unless named) only use what their own view shows them.

use euchre_bots::BotKind;
use euchre_engine::{Event, Game, HandOutcome, Preset, Seat, ThrowIn, Viewer};

fn main() {
    let mut args = std::env::args().skip(1);
    let seed = args.next().and_then(|s| s.parse().ok()).unwrap_or(2026);
    let preset_name = args.next().unwrap_or_else(|| "standard".to_owned());
    let bot_name = args.next().unwrap_or_else(|| "naive".to_owned());
    let Some(kind) = BotKind::from_name(&bot_name) else {
        let names: Vec<_> = BotKind::ALL.iter().map(|k| k.name()).collect();
        eprintln!("unknown bot '{bot_name}'; choose one of {}", names.join(", "));
        std::process::exit(2);
    };
    let Some(preset) = Preset::from_name(&preset_name) else {
        let names: Vec<_> = Preset::ALL.iter().map(|p| p.name()).collect();
        eprintln!("unknown preset '{preset_name}'; choose one of {}", names.join(", "));
        std::process::exit(2);
    };
    let mut game = match Game::new(preset.rules(), seed) {
        Ok(game) => game,
        Err(error) => {
            eprintln!("{error}");
            std::process::exit(2);
        }
    };
    println!("Euchre, {} rules, seed {seed}. Seats 0 and 2 play seats 1 and 3.", preset.name());
    println!("Seat {} deals first.", game.start().dealer.0);
    print_deal(&game);
    let mut bots: Vec<_> = (0..4).map(|seat| kind.create(seed.wrapping_add(seat))).collect();
    while let Some(seat) = game.turn() {
        let view = game.view(Viewer::Seat(seat));
        let Some(action) = bots[seat.index()].choose(&view, &game.legal_actions(seat)) else {
            eprintln!("the bot chose nothing");
            std::process::exit(1);
        };
        let events = match game.apply(seat, action) {
            Ok(events) => events,
            Err(error) => {
                eprintln!("the bot chose an illegal action: {error}");
                std::process::exit(1);
            }
        };
        for event in events {
            print_event(&game, event);
        }
    }
}

fn print_deal(game: &Game) {
    let hand = game.hand();
    println!();
    println!(
        "Hand {}: seat {} deals, {} turned up.",
        game.hand_number() + 1,
        hand.dealer().0,
        hand.up_card()
    );
    for seat in Seat::all(game.rules().players) {
        let cards: Vec<String> = hand.holding(seat).iter().map(|c| c.to_string()).collect();
        println!("  seat {}: {}", seat.0, cards.join(" "));
    }
}

fn print_event(game: &Game, event: Event) {
    match event {
        Event::JokerSuitNamed { dealer, suit } => {
            println!("  seat {} names {suit} for the joker", dealer.0)
        }
        Event::Passed { seat } => println!("  seat {} passes", seat.0),
        Event::UpCardTurnedDown { card } => println!("  {card} is turned down"),
        Event::TrumpMade { seat, suit, alone } => {
            let alone = if alone { ", alone" } else { "" };
            println!("  seat {} makes {suit} trump{alone}", seat.0);
        }
        Event::NoTrumpCalled { seat, alone } => {
            let alone = if alone { ", alone" } else { "" };
            println!("  seat {} calls no trump{alone}", seat.0);
        }
        Event::UpCardPickedUp { dealer, card } => println!("  seat {} picks up {card}", dealer.0),
        Event::Discarded { seat, .. } => println!("  seat {} discards", seat.0),
        Event::SitsOut { seat } => println!("  seat {} sits out", seat.0),
        Event::DefendsAlone { seat } => println!("  seat {} defends alone", seat.0),
        Event::CardPassed { from, to, .. } => {
            println!("  seat {} passes seat {} a card", from.0, to.0)
        }
        Event::DummyTaken { seat, .. } => println!("  seat {} takes the dummy", seat.0),
        Event::CardPlayed { seat, card } => println!("    seat {} plays {card}", seat.0),
        Event::TrickWon { seat, number } => println!("  trick {number} to seat {}", seat.0),
        Event::Claimed { seat, .. } => println!("  seat {} claims the rest", seat.0),
        Event::Conceded { seat } => println!("  seat {} concedes", seat.0),
        Event::HandEnded { outcome, scores } => {
            match outcome {
                HandOutcome::Played(played) => println!(
                    "  tricks {}, points {}{}",
                    dashed(played.tricks.as_slice()),
                    dashed(played.points.as_slice()),
                    if played.euchred() { " (euchred)" } else { "" }
                ),
                HandOutcome::ThrownIn(ThrowIn::AllPassed) => println!("  everybody passed"),
                HandOutcome::ThrownIn(ThrowIn::FarmersHand { seat }) => {
                    println!("  seat {} throws in a farmer's hand", seat.0)
                }
            }
            println!("  score: {}", dashed(scores.as_slice()));
        }
        Event::HandDealt { .. } => print_deal(game),
        Event::RubberWon { team, result } => {
            println!("Team {} wins the rubber by {}.", team.0, result.margin);
        }
        Event::GameWon { team, scores } => {
            println!();
            println!("Team {} wins, {}.", team.0, dashed(scores.as_slice()));
        }
    }
}

/// Per-team numbers as "7-10" (team 0 first).
fn dashed(values: &[impl std::fmt::Display]) -> String {
    values.iter().map(|value| value.to_string()).collect::<Vec<_>>().join("-")
}
