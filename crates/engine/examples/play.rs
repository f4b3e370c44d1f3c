//! Plays and prints a whole game between four simple bots.
//!
//! `cargo run -p euchre-engine --example play -- [SEED] [PRESET]`
//!
//! The bots only use what their own view shows them: they bid on the trumps
//! they hold and play the cheapest card that wins the trick, or else their
//! cheapest card.

use euchre_engine::trump::{effective_suit, power, trick_power};
use euchre_engine::{
    Action, Card, Event, Game, GameView, HandOutcome, Preset, Seat, Suit, ThrowIn, Viewer,
};

fn main() {
    let mut args = std::env::args().skip(1);
    let seed = args.next().and_then(|s| s.parse().ok()).unwrap_or(2026);
    let preset_name = args.next().unwrap_or_else(|| "standard".to_owned());
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
    while let Some(seat) = game.turn() {
        let view = game.view(Viewer::Seat(seat));
        let action = choose(&view, &game.legal_actions(seat));
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

/// A simple bot: bid on strength, win cheaply, otherwise throw the cheapest card.
fn choose(view: &GameView, legal: &[Action]) -> Action {
    let hand = view.hand.clone().unwrap_or_default();
    let strength = |trump: Suit| -> u32 {
        hand.iter()
            .filter(|c| effective_suit(**c, trump) == trump)
            .map(|c| u32::from(power(*c, trump)) - 10)
            .sum()
    };
    let best = |actions: &mut dyn Iterator<Item = Action>, key: &dyn Fn(&Action) -> i32| {
        actions.max_by_key(|a| key(a))
    };
    if let Some(Action::Discard { .. }) = legal.first() {
        let trump = view.trump.unwrap_or(Suit::Spades);
        let cheapest = best(&mut legal.iter().copied(), &|a| match a {
            Action::Discard { card } => -i32::from(power(*card, trump)),
            _ => i32::MIN,
        });
        return cheapest.unwrap_or(legal[0]);
    }
    if legal.iter().any(|a| matches!(a, Action::Play { .. })) {
        return play_card(view, legal);
    }
    // Bidding: the strongest call, if it is strong enough (or forced).
    let call = best(&mut legal.iter().copied(), &|a| match a {
        Action::OrderUp { alone: false } => strength(view.up_card.suit()) as i32,
        Action::Call { suit, alone: false } => strength(*suit) as i32,
        _ => i32::MIN,
    });
    let forced = !legal.contains(&Action::Pass);
    match call {
        Some(action @ (Action::OrderUp { .. } | Action::Call { .. })) => {
            let suit = match action {
                Action::Call { suit, .. } => suit,
                _ => view.up_card.suit(),
            };
            if forced || strength(suit) >= 28 { action } else { Action::Pass }
        }
        _ => legal.first().copied().unwrap_or(Action::Pass),
    }
}

fn play_card(view: &GameView, legal: &[Action]) -> Action {
    let trump = view.trump.unwrap_or(Suit::Spades);
    let cards: Vec<Card> = legal
        .iter()
        .filter_map(|a| match a {
            Action::Play { card } => Some(*card),
            _ => None,
        })
        .collect();
    let trick = view.tricks.last().filter(|t| t.winner.is_none()).map(|t| t.cards.as_slice());
    let cheapest = |cards: &mut dyn Iterator<Item = Card>| cards.min_by_key(|c| power(*c, trump));
    let card = match trick {
        Some(played) if !played.is_empty() => {
            let led = effective_suit(played[0].1, trump);
            let winning =
                played.iter().map(|(_, c)| trick_power(*c, led, trump)).max().unwrap_or(0);
            cheapest(&mut cards.iter().copied().filter(|c| trick_power(*c, led, trump) > winning))
                .or_else(|| cheapest(&mut cards.iter().copied()))
        }
        // On lead: the strongest card.
        _ => cards.iter().copied().max_by_key(|c| power(*c, trump)),
    };
    card.map(|card| Action::Play { card }).unwrap_or(legal[0])
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
