//! Puzzles built from stored, analysed matches (the shared fixtures' real
//! games and games between bots from fixed seeds), each checked on its own
//! by the brute-force search of `brute.rs`.

use euchre_analysis::{DEFAULT_WORLDS, Settings, analyse};
use euchre_bots::{BasicBot, Bot, BotKind};
use euchre_engine::{Action, CardSet, Game, GameRecord, Hand, NoEvents, Seat, Viewer, egn};
use euchre_puzzles::{AnswerError, Kind, Match, Puzzle, Verdict, human_first, mine};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::brute;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/fixtures/egn");

/// Worlds the check deals from each question: the same worlds for every
/// option, so their differences are measured on the same cards.
const CHECK_WORLDS: u32 = 64;

/// A stored match: its record and which seats people played.
struct Stored {
    id: String,
    record: GameRecord,
    humans: Vec<Seat>,
}

/// Three of the real recorded games (people in every seat), and two games
/// between bots (the medium search against the basic bot) from fixed seeds.
fn stored_matches() -> Vec<Stored> {
    let mut stored = Vec::new();
    for name in ["MotE_W5_G1", "MotE_W5_G2", "MotE_W5_G3"] {
        let text = std::fs::read_to_string(format!("{FIXTURES}/{name}.egn")).expect("a fixture");
        let game = egn::read(&text).expect("readable EGN");
        let (record, _) = egn::to_record(&game).expect("a record");
        stored.push(Stored { id: name.to_owned(), record, humans: Seat::all(4).collect() });
    }
    for seed in [11, 12] {
        let mut game = Game::new(euchre_engine::Rules::default(), seed).expect("valid rules");
        let mut bots: Vec<Box<dyn Bot>> = (0..4)
            .map(|seat| match seat % 2 {
                0 => BotKind::Medium.create(seed + seat),
                _ => Box::new(BasicBot::new()) as Box<dyn Bot>,
            })
            .collect();
        while let Some(seat) = game.turn() {
            let view = game.view(Viewer::Seat(seat));
            let action =
                bots[seat.index()].choose(&view, &game.legal_actions(seat)).expect("a choice");
            game.apply(seat, action).expect("legal");
        }
        stored.push(Stored {
            id: format!("bots-{seed}"),
            record: game.record().clone(),
            humans: vec![],
        });
    }
    stored
}

/// The hand at the puzzle's decision, rebuilt from the stored record (not
/// from the puzzle), and the cards the seat had seen there.
fn from_record(record: &GameRecord, puzzle: &Puzzle) -> (Hand, CardSet) {
    let recorded = &record.hands[puzzle.source.hand as usize];
    let seat = puzzle.question.seat;
    let mut hand = Hand::new(record.rules, recorded.deal);
    let mut seen = recorded.deal.hands[seat.index()];
    seen.insert(recorded.deal.up_card);
    for step in &recorded.actions[..puzzle.source.action as usize] {
        hand.apply_with(step.seat, step.action, &mut NoEvents).expect("the record replays");
        if let Action::Play { card } = step.action {
            seen.insert(card);
        }
    }
    // Call for best: the loner is shown the card his partner passes him.
    if let Some(passed) = hand.passed_card().filter(|_| hand.maker() == Some(seat)) {
        seen.insert(passed);
    }
    assert_eq!(hand.turn(), Some(seat));
    (hand, seen)
}

/// The question carries no card the seat could not see, and shows the
/// seat's own hand as it was.
fn check_sight(puzzle: &Puzzle, hand: &Hand, seen: CardSet) {
    let json = serde_json::to_value(&puzzle.question).expect("JSON");
    let mut shown = CardSet::EMPTY;
    brute::cards_in(&json, &mut shown);
    let hidden = shown.difference(seen);
    assert!(hidden.is_empty(), "{}: the question shows {hidden:?}", puzzle.source.match_id);
    let mine: CardSet = puzzle.question.view.hand.clone().expect("a hand").into_iter().collect();
    assert_eq!(mine, hand.holding(puzzle.question.seat));
}

/// With every card shown (cards only): the answers are exactly the cards
/// that take the most tricks, and the card played took fewer.
fn check_shown(puzzle: &Puzzle, hand: &Hand) {
    let seat = puzzle.question.seat;
    let tricks: Vec<(Action, u8)> = puzzle
        .question
        .options
        .iter()
        .map(|option| {
            let mut after = *hand;
            after.apply_with(seat, *option, &mut NoEvents).expect("legal");
            (*option, brute::side_tricks(&after, seat, brute::makers_tricks(&after)))
        })
        .collect();
    let most = tricks.iter().map(|(_, t)| *t).max().expect("options");
    let best: Vec<Action> = tricks.iter().filter(|(_, t)| *t == most).map(|(a, _)| *a).collect();
    assert_eq!(best, puzzle.answers, "{:?}: {tricks:?}", puzzle.source);
    let played = tricks.iter().find(|(a, _)| *a == puzzle.source.played).expect("played");
    assert!(played.1 < most);
}

/// Over worlds dealt from the question alone, every answer is worth at
/// least as much on average as every other option.
fn check_known(puzzle: &Puzzle, hand: &Hand, seed: u64) -> (f64, f64) {
    let (view, seat) = (&puzzle.question.view, puzzle.question.seat);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let options = &puzzle.question.options;
    let mut totals = vec![0.0; options.len()];
    for _ in 0..CHECK_WORLDS {
        let holdings = brute::world(view, seat, &mut rng).expect("a world fits the view");
        let world = match puzzle.question.kind {
            Kind::Card => hand.with_holdings(holdings).expect("a world in card play"),
            Kind::Bid | Kind::Discard => brute::bidding_world(view, seat, holdings),
        };
        for (total, option) in totals.iter_mut().zip(options) {
            *total += brute::option_points(&world, seat, *option);
        }
    }
    let mean = |pick: &dyn Fn(&Action) -> bool| -> Vec<f64> {
        options
            .iter()
            .zip(&totals)
            .filter(|(option, _)| pick(option))
            .map(|(_, total)| total / f64::from(CHECK_WORLDS))
            .collect()
    };
    let answers = mean(&|option| puzzle.answers.contains(option));
    let others = mean(&|option| !puzzle.answers.contains(option));
    let worst_answer = answers.iter().copied().fold(f64::INFINITY, f64::min);
    let best_other = others.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (worst_answer, best_other)
}

/// Judging and playing out agree with the answers; a submission that is
/// not an option is refused.
fn check_answering(puzzle: &Puzzle) {
    for option in &puzzle.question.options {
        let verdict =
            if puzzle.answers.contains(option) { Verdict::Best } else { Verdict::NotBest };
        assert_eq!(puzzle.judge(*option), Ok(verdict));
    }
    let hand = puzzle.position().expect("the puzzle's position replays");
    let foreign = hand
        .rules()
        .deck
        .cards()
        .iter()
        .map(|card| Action::Play { card })
        .find(|action| !puzzle.question.options.contains(action))
        .expect("a card that is not an option");
    assert_eq!(puzzle.judge(foreign), Err(AnswerError::NotAnOption));
    assert_eq!(puzzle.see_it_played(foreign), Err(AnswerError::NotAnOption));
    let both = puzzle.see_it_played(puzzle.source.played).expect("played both ways");
    assert!(puzzle.answers.contains(&both.best.first));
    assert_eq!(both.answer.first, puzzle.source.played);
    if puzzle.question.kind == Kind::Card {
        assert!(both.best.tricks > both.answer.tricks, "{:?}", puzzle.source);
        assert_eq!(
            both.best.plays.first(),
            Some(&(puzzle.question.seat, card_of(both.best.first)))
        );
    }
    let stored: Puzzle =
        serde_json::from_str(&serde_json::to_string(puzzle).expect("JSON")).expect("read back");
    assert_eq!(&stored, puzzle);
}

fn card_of(action: Action) -> euchre_engine::Card {
    match action {
        Action::Play { card } => card,
        other => panic!("not a card: {other:?}"),
    }
}

#[test]
fn puzzles_from_stored_matches_check_out_on_their_own() {
    let mut puzzles = Vec::new();
    let stored = stored_matches();
    for game in &stored {
        let analysis =
            analyse(&game.record, &Settings { worlds: DEFAULT_WORLDS, seed: 5 }).expect("analysed");
        let found = mine(&Match {
            id: &game.id,
            record: &game.record,
            analysis: &analysis,
            humans: &game.humans,
        })
        .expect("mined");
        puzzles.extend(found);
    }
    human_first(&mut puzzles);
    let cards = puzzles.iter().filter(|p| p.question.kind == Kind::Card).count();
    eprintln!("{} puzzles, {cards} of cards", puzzles.len());
    assert!(cards > 0 && cards < puzzles.len(), "puzzles of both cards and bids");
    assert!(puzzles.first().is_some_and(|p| p.source.by_human));
    for (number, puzzle) in puzzles.iter().enumerate() {
        let game = stored.iter().find(|g| g.id == puzzle.source.match_id).expect("its match");
        let (hand, seen) = from_record(&game.record, puzzle);
        assert_eq!(puzzle.position().as_ref(), Ok(&hand));
        check_sight(puzzle, &hand, seen);
        if puzzle.question.kind == Kind::Card {
            check_shown(puzzle, &hand);
        }
        let (worst_answer, best_other) = check_known(puzzle, &hand, number as u64);
        eprintln!(
            "{:?} {:?} {:?}: answers {worst_answer:.2}, others {best_other:.2}",
            puzzle.question.kind, puzzle.source.match_id, puzzle.themes
        );
        assert!(worst_answer >= best_other, "{:?}: {worst_answer} < {best_other}", puzzle.source);
        check_answering(puzzle);
    }
}
