//! The fixed deals of `tests/data/perft.txt` and their committed counts.
//! Shared by the perft test and the benchmark (which includes this file by
//! path), so both read the same numbers.

use euchre_engine::card::parse_cards;
use euchre_engine::{Action, Card, CardSet, Deal, Deck, Hand, Phase, Preset, Rules, Seat, Suit};

/// One fixed deal, its bidding and its committed counts.
#[derive(Clone, Debug)]
pub struct Case {
    pub id: String,
    /// The game form: a preset (`Rules::default()` unless the case names
    /// one) with the case's options on top.
    pub rules: Rules,
    pub dealer: Seat,
    /// Seat `i`'s five cards as dealt (empty for seats the game lacks).
    pub hands: [Vec<Card>; 4],
    /// The dummy hand, where the game has one.
    pub dummy: Vec<Card>,
    pub up_card: Card,
    /// The bidding (and discard) that leads to the first lead.
    pub bids: Vec<(Seat, Action)>,
    /// `(depth, count)`, by increasing depth.
    pub counts: Vec<(u32, u64)>,
}

/// Every case of the committed file.
pub fn load() -> Vec<Case> {
    parse(include_str!("../../data/perft.txt"))
}

pub fn parse(text: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut current: Option<Case> = None;
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fail = |what: &str| -> ! { panic!("perft.txt line {}: {what}: {line}", number + 1) };
        let mut words = line.split_whitespace();
        let key = words.next().unwrap_or_default();
        let rest: Vec<&str> = words.collect();
        if key == "id" {
            cases.extend(current.take());
            current = Some(Case {
                id: rest.join(" "),
                rules: Rules::default(),
                dealer: Seat(0),
                hands: Default::default(),
                dummy: Vec::new(),
                up_card: Card::from_index(0),
                bids: Vec::new(),
                counts: Vec::new(),
            });
            continue;
        }
        let Some(case) = current.as_mut() else { fail("expected an id line first") };
        let seat = |word: Option<&&str>| match word.and_then(|w| w.parse::<u8>().ok()) {
            Some(n) if n < 4 => Seat(n),
            _ => fail("expected a seat 0 to 3"),
        };
        let card = |word: Option<&&str>| {
            word.and_then(|w| w.parse::<Card>().ok()).unwrap_or_else(|| fail("expected a card"))
        };
        let suit = |word: Option<&&str>| {
            word.and_then(|w| w.chars().next())
                .and_then(Suit::from_letter)
                .unwrap_or_else(|| fail("expected a suit letter"))
        };
        let cards =
            |words: &[&str]| parse_cards(&words.join(" ")).unwrap_or_else(|_| fail("bad cards"));
        match key {
            "rules" => {
                if case.rules != Rules::default() {
                    fail("the rules line comes first, before any option");
                }
                let preset = rest.first().and_then(|name| Preset::from_name(name));
                case.rules = preset.unwrap_or_else(|| fail("expected a preset name")).rules();
            }
            "option" => match rest[..] {
                ["joker"] => case.rules.joker = true,
                ["allow_no_trump"] => case.rules.allow_no_trump = true,
                ["deck", deck] => {
                    case.rules.deck = match deck {
                        "ten_to_ace" => Deck::TenToAce,
                        "nine_to_ace" => Deck::NineToAce,
                        "eight_to_ace" => Deck::EightToAce,
                        "seven_to_ace" => Deck::SevenToAce,
                        _ => fail("unknown deck"),
                    }
                }
                _ => fail("unknown option"),
            },
            "dealer" => case.dealer = seat(rest.first()),
            "seat" => {
                let index = seat(rest.first()).index();
                case.hands[index] = cards(&rest[1..]);
            }
            "dummy" => case.dummy = cards(&rest),
            "up" => case.up_card = card(rest.first()),
            "bid" => {
                let action = match rest.get(1).copied() {
                    Some("pass") => Action::Pass,
                    Some("order") => Action::OrderUp { alone: false },
                    Some("order_alone") => Action::OrderUp { alone: true },
                    Some("call") => Action::Call { suit: suit(rest.get(2)), alone: false },
                    Some("call_alone") => Action::Call { suit: suit(rest.get(2)), alone: true },
                    Some("discard") => Action::Discard { card: card(rest.get(2)) },
                    Some("name_suit") => Action::NameSuit { suit: suit(rest.get(2)) },
                    Some("call_no_trump") => Action::CallNoTrump { alone: false },
                    Some("call_no_trump_alone") => Action::CallNoTrump { alone: true },
                    _ => fail("unknown bid"),
                };
                case.bids.push((seat(rest.first()), action));
            }
            "perft" => {
                let numbers: Vec<u64> = rest.iter().filter_map(|w| w.parse().ok()).collect();
                let [depth, count] = numbers[..] else { fail("expected a depth and a count") };
                case.counts.push((depth as u32, count));
            }
            _ => fail("unknown line"),
        }
    }
    cases.extend(current);
    cases
}

impl Case {
    pub fn deal(&self) -> Deal {
        let hands = self.hands.clone().map(|cards| cards.into_iter().collect());
        let dummy: CardSet = self.dummy.iter().copied().collect();
        self.rules.validate().unwrap_or_else(|error| panic!("{}: {error}", self.id));
        Deal::with_dummy(&self.rules, self.dealer, hands, dummy, self.up_card)
            .unwrap_or_else(|error| panic!("{}: {error}", self.id))
    }

    /// The hand at the first lead, its bidding applied through the full API.
    pub fn hand(&self) -> Hand {
        let mut hand = Hand::new(self.rules, self.deal());
        for (seat, action) in &self.bids {
            hand.apply(*seat, *action)
                .unwrap_or_else(|error| panic!("{}: {action:?} by {seat}: {error}", self.id));
        }
        assert_eq!(hand.phase(), Phase::Playing, "{}: the bidding leads to play", self.id);
        hand
    }

    /// The deepest committed count.
    pub fn deepest(&self) -> (u32, u64) {
        *self.counts.last().expect("a case has counts")
    }
}
