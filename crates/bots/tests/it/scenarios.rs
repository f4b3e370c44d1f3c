//! Scenario tests: a fixed deal, a script of actions to reach a position, and
//! the action the basic bot must choose there.
//!
//! Scripts are written as the table would see them, one token per action,
//! each taken by whoever's turn it is: `pass`, `order`, `alone`, `call:h`,
//! `discard:9s`, `play:Jh`. The bot is asked as the seat to act next.

use euchre_bots::{BasicBot, Bot};
use euchre_engine::card::parse_cards;
use euchre_engine::{
    Action, Card, CardSet, Deal, Game, GameStart, Preset, Rules, Seat, Suit, Viewer,
};

struct Case {
    /// What the bot should do, in words: the failure message.
    name: &'static str,
    rules: Rules,
    dealer: u8,
    /// Each seat's five cards.
    hands: [&'static str; 4],
    up: &'static str,
    script: &'static str,
    expect: &'static str,
}

impl Case {
    fn new(name: &'static str, hands: [&'static str; 4], up: &'static str) -> Case {
        Case { name, rules: Rules::default(), dealer: 0, hands, up, script: "", expect: "" }
    }
    fn rules(self, preset: Preset) -> Case {
        Case { rules: preset.rules(), ..self }
    }
    fn no_trump(self) -> Case {
        Case { rules: Rules { allow_no_trump: true, ..self.rules }, ..self }
    }
    fn call_for_best(self) -> Case {
        Case { rules: Rules { call_for_best: true, ..self.rules }, ..self }
    }
    fn after(self, script: &'static str) -> Case {
        Case { script, ..self }
    }
    fn expect(self, expect: &'static str) -> Case {
        Case { expect, ..self }
    }

    /// Builds the position and checks the bot's choice there.
    fn check(&self) {
        let hands = self.hands.map(|text| cards(text).into_iter().collect::<CardSet>());
        let dealer = Seat(self.dealer);
        let deal = Deal::from_hands(&self.rules, dealer, hands, card(self.up))
            .unwrap_or_else(|e| panic!("{}: bad deal: {e}", self.name));
        let start = GameStart { dealer, seating: [0, 1, 2, 3], shown: Vec::new() };
        let mut game = Game::with_deals(self.rules, 1, start, vec![deal])
            .unwrap_or_else(|e| panic!("{}: {e}", self.name));
        for token in self.script.split_whitespace() {
            let seat = game.turn().expect("the hand is still on");
            game.apply(seat, action(token))
                .unwrap_or_else(|e| panic!("{}: script step {token}: {e}", self.name));
        }
        let seat = game.turn().expect("somebody is to act");
        let legal = game.legal_actions(seat);
        let choice = BasicBot::new().choose(&game.view(Viewer::Seat(seat)), &legal);
        assert_eq!(choice, Some(action(self.expect)), "{} ({seat})", self.name);
    }
}

fn cards(text: &str) -> Vec<Card> {
    parse_cards(text).expect("card codes")
}

fn card(text: &str) -> Card {
    text.parse().expect("a card code")
}

fn action(token: &str) -> Action {
    let (verb, arg) = token.split_once(':').unwrap_or((token, ""));
    let suit = || arg.chars().next().and_then(Suit::from_letter).expect("a suit letter");
    match verb {
        "pass" => Action::Pass,
        "order" => Action::OrderUp { alone: false },
        "alone" => Action::OrderUp { alone: true },
        "call" => Action::Call { suit: suit(), alone: false },
        "call_alone" => Action::Call { suit: suit(), alone: true },
        "no_trump" => Action::CallNoTrump { alone: false },
        "no_trump_alone" => Action::CallNoTrump { alone: true },
        "discard" => Action::Discard { card: card(arg) },
        "pass_card" => Action::PassCard { card: card(arg) },
        "play" => Action::Play { card: card(arg) },
        "farmers" => Action::FarmersHand,
        "claim" => Action::Claim,
        other => panic!("unknown script token {other}"),
    }
}

// In every deal below seat 0 deals unless said otherwise, so seat 1 bids
// and leads first, seat 2 is the dealer's partner and seat 3 bids last
// before the dealer.

#[test]
fn bidding() {
    let cases = [
        Case::new(
            "orders up with the right bower, ace and king of trump and an off ace",
            ["9s Ts Qs Kc Qc", "Jh Kh Ah Ac 9c", "Ks As 9d Td Qd", "Th Qh Jd Tc Js"],
            "9h",
        )
        .expect("order"),
        Case::new(
            "with both bowers but two plain losers, orders up without going alone",
            ["Ts Qs Qc Tc 9d", "Jh Jd Ah Kc 9s", "Ks As Td Qd Kd", "Th Qh Kh Ac Js"],
            "9h",
        )
        .expect("order"),
        Case::new(
            "passes a hand without trumps or aces",
            ["9s Ts Qs Kc Qc", "Td Qd Kd 9c Tc", "Ks As 9d Jd Ad", "Th Qh Kh Ac Js"],
            "9h",
        )
        .expect("pass"),
        Case::new(
            "goes alone with both bowers, two more trumps and an off ace",
            ["9s Ts Qs Kc Qc", "Jh Jd Ah Kh As", "Ks 9d Td Qd Kd", "Th Qh Ac Tc Js"],
            "9h",
        )
        .expect("alone"),
        Case::new(
            "as dealer, picks up the right bower to a middling hand",
            ["Ah Qh 9c Tc As", "9s Ts Qs Kc Qc", "Ks 9d Td Qd Kd", "Th Kh Ac Js Ad"],
            "Jh",
        )
        .after("pass pass pass")
        .expect("order"),
        Case::new(
            "as the dealer's partner, orders up the right bower to a middling hand",
            ["Ks Ts Qs Kc Qc", "9d Td Qd Kd Js", "Ah Kh Ac Tc 9s", "Th Qh Jc As Ad"],
            "Jh",
        )
        .after("pass")
        .expect("order"),
        Case::new(
            "left of the dealer, does not order the right bower to the opponents",
            ["Ks Ts Qs Kc Qc", "Ah Kh Ac Tc 9s", "9d Td Qd Kd Js", "Th Qh Jc As Ad"],
            "Jh",
        )
        .expect("pass"),
        Case::new(
            "in round two, names its best suit (spades, not clubs or diamonds)",
            ["9s Ts Qs Kc Qc", "Js Jc As 9d Td", "Ks Qd Kd 9c Ac", "Th Qh Kh Jh Ad"],
            "9h",
        )
        .after("pass pass pass pass")
        .expect("call:s"),
        Case::new(
            "in round two, passes a weak hand",
            ["9s Ts Qs Kc Qc", "9d Td Ks 9c Th", "Js Jc As Qd Ac", "Qh Kh Jh Ad Kd"],
            "9h",
        )
        .after("pass pass pass pass")
        .expect("pass"),
        Case::new(
            "stuck as dealer, names its best suit",
            ["9c Tc Qc 9d Ts", "9s Qs Kc Ac Jd", "Td Qd Kd Ad Jc", "Th Qh Kh Jh As"],
            "9h",
        )
        .rules(Preset::StickTheDealer)
        .after("pass pass pass pass pass pass pass")
        .expect("call:c"),
        Case::new(
            "in round two, calls no trump with four sure tricks where it is allowed",
            ["9s Ts Qs 9c Tc", "As Ks Ac Ad Th", "Js Jh Qh Kh Ah", "Jc Qc Kc 9d Td"],
            "9h",
        )
        .no_trump()
        .after("pass pass pass pass")
        .expect("no_trump"),
        Case::new(
            "passes the same hand where no trump is not allowed (no suit is strong enough)",
            ["9s Ts Qs 9c Tc", "As Ks Ac Ad Th", "Js Jh Qh Kh Ah", "Jc Qc Kc 9d Td"],
            "9h",
        )
        .after("pass pass pass pass")
        .expect("pass"),
        Case::new(
            "calls no trump alone with five sure tricks",
            ["9s Ts Qs 9c Tc", "As Ks Ac Ad Ah", "Js Jh Qh Kh Th", "Jc Qc Kc 9d Td"],
            "9h",
        )
        .no_trump()
        .after("pass pass pass pass")
        .expect("no_trump_alone"),
        Case::new(
            "calling for best at no trump, the partner passes his highest card",
            ["9s Ts Qs 9c Tc", "As Ks Ac Ad Ah", "Js Jh Qh Kh Th", "Jc Qc Kc 9d Td"],
            "9h",
        )
        .no_trump()
        .call_for_best()
        .after("pass pass pass pass no_trump_alone")
        .expect("pass_card:Kc"),
        Case::new(
            "throws in a farmer's hand",
            ["Qs Ks As Qc Kc", "9s Ts 9c Tc 9d", "Js Jc Ac Td Qd", "Th Qh Kh Jh Ad"],
            "9h",
        )
        .rules(Preset::Farmers)
        .expect("farmers"),
    ];
    for case in cases {
        case.check();
    }
}

#[test]
fn dealer_discard() {
    let cases = [
        Case::new(
            "discards a lone king to make a void",
            ["Jh Ah Kc 9s Ts", "Qs Ks As Qc Ac", "9d Td Qd Kd Ad", "Th Qh Kh Jd Js"],
            "9h",
        )
        .after("pass pass pass order")
        .expect("discard:Kc"),
        Case::new(
            "keeps a lone ace and throws the lowest off-suit card",
            ["Jh Ah Kc 9c As", "Qs Ks Ts Qc Ac", "9d Td Qd Kd Ad", "Th Qh Kh Jd Js"],
            "9h",
        )
        .after("pass pass pass order")
        .expect("discard:9c"),
        Case::new(
            "never discards a trump while holding anything else, even an ace",
            ["Jh Ah Kh Qh Ac", "Qs Ks As Qc Kc", "9d Td Qd Kd Ad", "Th 9s Ts Jd Js"],
            "9h",
        )
        .after("pass pass pass order")
        .expect("discard:Ac"),
        Case::new(
            "holding only trumps, throws the lowest it may (not the up-card, here)",
            ["Jh Jd Ah Kh Qh", "Qs Ks As Qc Kc", "9d Td Qd Kd Ad", "Th 9s Ts Ac Js"],
            "9h",
        )
        .rules(Preset::Tournament)
        .after("pass pass pass order")
        .expect("discard:Qh"),
    ];
    for case in cases {
        case.check();
    }
}

#[test]
fn leading() {
    let cases = [
        Case::new(
            "as maker, leads the right bower",
            ["9s Ts Qs Kc Qc", "Jh Kh Ac 9c Qd", "Ks As 9d Td Kd", "Th Qh Ah Tc Js"],
            "9h",
        )
        .after("order discard:9s")
        .expect("play:Jh"),
        Case::new(
            "defending, cashes an off-suit ace rather than lead trump",
            ["9s Ts Qs Kc Qc", "Ac 9c Td Kh Qd", "Jh Ah Ks As 9d", "Th Qh Tc Js Kd"],
            "9h",
        )
        .after("pass order discard:9s")
        .expect("play:Ac"),
        Case::new(
            "with nothing to cash, leads its lowest plain card, from the shorter suit on a tie",
            ["9s Ts Qs Kc Td", "9d 9c Tc Qc Kh", "Jh Ah Ks As Qd", "Th Qh Ac Js Kd"],
            "9h",
        )
        .after("pass order discard:9s")
        .expect("play:9d"),
        Case::new(
            "does not cash a winner in a suit an opponent has shown it can trump",
            ["9s Ts Js Kd Ad", "Qs Jh Ah Kh Tc", "As Ks 9d Td Qc", "9c Jc Ac Th Qh"],
            "Kc",
        )
        .after("pass pass pass pass call:h play:Qs play:As play:9c play:9s")
        .expect("play:9d"),
        Case::new(
            "leads its lowest trump to its partner's call",
            ["Ts Qs Js Kc Qc", "Th Qh Ac 9s Qd", "Ks As 9d Td Kd", "Jh Jd Ah Kh Tc"],
            "9h",
        )
        .after("pass pass order discard:Ts")
        .expect("play:Th"),
        Case::new(
            "claims the rest when the engine offers it",
            ["9s Ts Qs Kc Qc", "Jh Jd Ah Kh Qh", "Ks As 9d Td Kd", "Th Ac Tc Js Ad"],
            "9h",
        )
        .after("order discard:9s")
        .expect("claim"),
    ];
    for case in cases {
        case.check();
    }
}

#[test]
fn following() {
    // Round one is passed and seat 1 names trump in round two, so seat 1
    // leads the first trick and the dealer plays last to it.
    let cases = [
        Case::new(
            "last to play, wins with the cheapest card that beats the trick",
            ["9h Ts Ks As Kc", "Qs Jh Ah Ac Td", "9s Th Qd Kd Ad", "Js Qh Kh Jd 9d"],
            "Qc",
        )
        .after("pass pass pass pass call:h play:Qs play:9s play:Js")
        .expect("play:Ks"),
        Case::new(
            "does not overtake a partner who is sure to win the trick",
            ["Ad Qd Tc Kc Ac", "9d Ts Js Qs Ks", "Kd 9s As Jh Ah", "Td Th Qh Kh Jd"],
            "9c",
        )
        .after("pass pass pass pass call:s play:9d play:Kd play:Td")
        .expect("play:Qd"),
        Case::new(
            "void, throws a low plain card under a partner's winning ace",
            ["9h Jc Ks 9c Ts", "9d Qs As Qh Tc", "Ad Kd Js Ah Qc", "Td Th Kh Jd Ac"],
            "Kc",
        )
        .after("pass pass pass pass call:h play:9d play:Ad play:Td")
        .expect("play:9c"),
        Case::new(
            "takes over with a sure winner when the partner's card may be beaten",
            ["Ks Js Qh Jd 9d", "Qs Jh Ah Ac Td", "9s Th Qd Kd Ad", "As Ts Kh Qc Kc"],
            "9c",
        )
        .after("pass pass pass pass call:h play:Qs play:9s")
        .expect("play:As"),
        Case::new(
            "void, trumps in when an opponent is winning",
            ["9s Ts Qs Kc Qc", "Ac Jh Ah Ad Kd", "9h Qh Ks As 9d", "Th Kh Tc Js Qd"],
            "Jd",
        )
        .after("pass pass pass pass call:h play:Ac")
        .expect("play:9h"),
        Case::new(
            "overtrumps as cheaply as possible",
            ["9h Qh Ah Ks As", "Kc Jh 9s Ts Qs", "9c Tc Qd Kd Ad", "Th Td Js 9d Kh"],
            "Jc",
        )
        .after("pass pass pass pass call:h play:Kc play:9c play:Th")
        .expect("play:Qh"),
        Case::new(
            "plays its lowest card when it cannot win",
            ["Ah Qh As Ks Kc", "Jh 9s Ts Qs Tc", "Th 9c Td Qd Kd", "9h Kh Js Ac Ad"],
            "Jc",
        )
        .after("pass pass pass pass call:h play:Jh play:Th play:9h")
        .expect("play:Qh"),
    ];
    for case in cases {
        case.check();
    }
}
