//! A client's own check of a revealed deal: what one seat (or spectator)
//! saw of a hand, held against the deck and salt the server reveals when
//! the hand ends.
//!
//! A matching hash alone proves little to a player: a dishonest server
//! could commit to one deck, deal another and reveal the first. So a
//! reveal is verified only if
//! - the deck is exactly the game's pack, each card once ([`Deal::from_deck`]);
//! - the deck and salt hash to the commitment;
//! - the commitment came before anything else of the hand (before the first
//!   bid, while it could still fix the deal);
//! - the up-card and every hand shown at the deal (a seat's own) are the
//!   deck's, in their places;
//! - every card seen leave a seat (played, discarded where shown, passed,
//!   claimed) was that seat's to give: its part of the deck, with what came
//!   its way in the hand (the up-card for the dealer who picked it up, the
//!   dummy for the maker who took it, a card passed to it), and no card
//!   is seen twice.
//!
//! Otherwise it is a [`Mismatch`] (the reveal contradicts what this client
//! saw or was sent) or, where there was nothing to hold it against,
//! [`Unchecked`]. The browser's copy of this check is `web/js/witness.js`.

use std::fmt;

use super::{Commitment, Salt, commit};
use crate::action::{DealtHands, Event, Seat, Viewer};
use crate::card::{Card, CardSet};
use crate::deal::{Deal, DealError};
use crate::rules::Rules;
use crate::view::GameView;

/// What a client can say of a revealed deal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every check held: this is the deal committed to before the bidding,
    /// and the deal that was played.
    Verified,
    /// Nothing to hold the reveal against, for the reason given.
    NotChecked(Unchecked),
    /// The reveal contradicts what this client saw or was sent.
    Mismatch(Mismatch),
}

/// Why a reveal could not be checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unchecked {
    /// No commitment to this hand came (it was dealt unsealed, or this
    /// client was not at the table when it was sent).
    NoCommitment,
    /// The commitment came after the hand's bidding had begun, when it no
    /// longer fixed the deal.
    CommittedLate,
    /// This client did not see the hand dealt (it joined during the hand).
    DealNotSeen,
}

/// How a reveal contradicts what this client saw or was sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// The revealed deck is not the game's pack.
    NotThePack(DealError),
    /// The deck and salt do not hash to the commitment.
    Hash,
    /// The up-card turned at the deal is not the deck's.
    UpCard { seen: Card, revealed: Card },
    /// The hand this client was dealt (`seat`'s) is not that seat's part.
    Hand { seat: Seat },
    /// The dummy shown to its taker is not the deck's dummy.
    Dummy { seat: Seat },
    /// `seat` gave `card` (played, discarded, passed or claimed it), which
    /// was not its to give.
    NotHeld { seat: Seat, card: Card },
}

impl Verdict {
    /// A stable snake_case code: `verified`, `not_checked` or `mismatch`.
    pub fn code(&self) -> &'static str {
        match self {
            Verdict::Verified => "verified",
            Verdict::NotChecked(_) => "not_checked",
            Verdict::Mismatch(_) => "mismatch",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Verified => f.write_str(
                "deal verified: the one committed to before the bidding, and the one played",
            ),
            Verdict::NotChecked(why) => write!(f, "deal not checked: {why}"),
            Verdict::Mismatch(why) => write!(f, "deal does not match: {why}"),
        }
    }
}

impl fmt::Display for Unchecked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Unchecked::NoCommitment => "no commitment to this hand was seen",
            Unchecked::CommittedLate => "its commitment came after the bidding had begun",
            Unchecked::DealNotSeen => "this client did not see the hand dealt",
        })
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::NotThePack(error) => write!(f, "the revealed deck is not the pack ({error})"),
            Mismatch::Hash => {
                f.write_str("the revealed deck and salt do not hash to the commitment")
            }
            Mismatch::UpCard { seen, revealed } => {
                write!(f, "the up-card was {seen}, the revealed deck says {revealed}")
            }
            Mismatch::Hand { seat } => {
                write!(f, "{seat} was dealt other cards than the revealed deck gives it")
            }
            Mismatch::Dummy { seat } => {
                write!(f, "{seat} took another dummy than the revealed deck holds")
            }
            Mismatch::NotHeld { seat, card } => {
                write!(f, "{seat} gave {card}, which the revealed deck did not give it")
            }
        }
    }
}

/// What this client saw of the hand being played.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Watched {
    number: u32,
    /// The deal as seen (`None` when the hand was joined under way).
    dealt: Option<Dealt>,
    commitment: Option<Commitment>,
    /// The commitment came after other events of the hand.
    committed_late: bool,
    /// The hand's events after the deal, in order.
    events: Vec<Event>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Dealt {
    dealer: Seat,
    up_card: Card,
    /// The hands shown to this client (its own, if seated).
    shown: DealtHands,
}

/// Follows one table's hands, as one client sees them, and checks each
/// reveal. Feed it every game event ([`Witness::saw`]) and the deal's
/// notices, in the order they come.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Witness {
    watched: Option<Watched>,
}

impl Witness {
    /// A game event this client was sent. A deal starts a new hand.
    pub fn saw(&mut self, event: &Event) {
        if let Event::HandDealt { number, dealer, up_card, hands } = *event {
            self.watched = Some(Watched {
                number,
                dealt: Some(Dealt { dealer, up_card, shown: hands }),
                commitment: None,
                committed_late: false,
                events: Vec::new(),
            });
        } else if let Some(watched) = &mut self.watched {
            watched.events.push(*event);
        }
    }

    /// The commitment to hand `number`'s deal came.
    pub fn committed(&mut self, number: u32, commitment: Commitment) {
        let watched = self.hand(number);
        if watched.commitment.is_none() {
            watched.committed_late = !watched.events.is_empty();
            watched.commitment = Some(commitment);
        }
    }

    /// A snapshot of the table (on joining it, or after events were lost)
    /// with `view`'s hand in play and its commitment, if one was made.
    /// A hand nobody has acted in yet is as good as seen dealt; otherwise
    /// what was seen of it stands, and a commitment first known now came
    /// late.
    pub fn joined(&mut self, view: &GameView, commitment: Option<Commitment>) {
        // The same number but another deal: a new game's hand.
        let dealt = self.watched.as_ref().and_then(|watched| watched.dealt);
        if dealt.is_some_and(|dealt| (dealt.dealer, dealt.up_card) != (view.dealer, view.up_card)) {
            self.watched = None;
        }
        let watched = self.hand(view.hand_number);
        let untouched = view.bids.is_empty() && view.joker_suit.is_none() && view.tricks.is_empty();
        if untouched && watched.dealt.is_none() {
            let mut hands = [CardSet::EMPTY; 4];
            let seat = match view.viewer {
                Viewer::Seat(seat) => Some(seat),
                Viewer::Spectator => None,
            };
            if let (Some(seat), Some(own)) = (seat, &view.hand) {
                hands[seat.index()] = own.iter().copied().collect();
            }
            let shown = DealtHands::all(hands).only(seat);
            watched.dealt = Some(Dealt { dealer: view.dealer, up_card: view.up_card, shown });
        }
        if watched.commitment.is_none() && commitment.is_some() {
            watched.commitment = commitment;
            watched.committed_late = !untouched;
        }
    }

    /// The hand being watched, or a new one this client did not see dealt.
    fn hand(&mut self, number: u32) -> &mut Watched {
        if self.watched.as_ref().is_some_and(|watched| watched.number != number) {
            self.watched = None;
        }
        self.watched.get_or_insert_with(|| Watched {
            number,
            dealt: None,
            commitment: None,
            committed_late: false,
            events: Vec::new(),
        })
    }

    /// The commitment to the hand being played, if one came.
    pub fn commitment(&self) -> Option<(u32, Commitment)> {
        let watched = self.watched.as_ref()?;
        Some((watched.number, watched.commitment?))
    }

    /// Hand `number` revealed as `deck` and `salt`: the verdict on it.
    pub fn revealed(&self, rules: &Rules, number: u32, deck: &[Card], salt: &Salt) -> Verdict {
        let watched = self.watched.as_ref().filter(|watched| watched.number == number);
        let dealer = watched.and_then(|w| w.dealt).map_or(Seat(0), |dealt| dealt.dealer);
        let deal = match Deal::from_deck(rules, dealer, deck) {
            Ok(deal) => deal,
            Err(error) => return Verdict::Mismatch(Mismatch::NotThePack(error)),
        };
        let Some(watched) = watched else { return Verdict::NotChecked(Unchecked::DealNotSeen) };
        if let Some(commitment) = watched.commitment
            && commit(deck, salt) != commitment
        {
            return Verdict::Mismatch(Mismatch::Hash);
        }
        if let Some(dealt) = watched.dealt
            && let Err(mismatch) = fits(&deal, &dealt, &watched.events)
        {
            return Verdict::Mismatch(mismatch);
        }
        match watched {
            Watched { commitment: None, .. } => Verdict::NotChecked(Unchecked::NoCommitment),
            Watched { dealt: None, .. } => Verdict::NotChecked(Unchecked::DealNotSeen),
            Watched { committed_late: true, .. } => Verdict::NotChecked(Unchecked::CommittedLate),
            _ => Verdict::Verified,
        }
    }
}

/// Whether what was seen of the hand fits `deal`: the up-card, the hands
/// shown, and every card seen leave a seat.
fn fits(deal: &Deal, dealt: &Dealt, events: &[Event]) -> Result<(), Mismatch> {
    let up = deal.up_card;
    if dealt.up_card != up {
        return Err(Mismatch::UpCard { seen: dealt.up_card, revealed: up });
    }
    for (index, part) in deal.hands.iter().enumerate() {
        if dealt.shown.get(index).is_some_and(|shown| shown != *part) {
            return Err(Mismatch::Hand { seat: Seat(index as u8) });
        }
    }
    // What each seat may still give: its part, and what came its way.
    let mut held = deal.hands;
    let give = |held: &mut [CardSet; 4], seat: Seat, card: Card| {
        if !held[seat.index()].contains(card) {
            return Err(Mismatch::NotHeld { seat, card });
        }
        // A card is given once, whoever might have held it.
        held.iter_mut().for_each(|cards| cards.remove(card));
        Ok(())
    };
    for event in events {
        match *event {
            Event::UpCardTurnedDown { card } | Event::UpCardPickedUp { card, .. } if card != up => {
                return Err(Mismatch::UpCard { seen: card, revealed: up });
            }
            Event::UpCardPickedUp { dealer, card } => held[dealer.index()].insert(card),
            Event::DummyTaken { seat, cards } => {
                if cards.is_some_and(|cards| cards != deal.dummy) {
                    return Err(Mismatch::Dummy { seat });
                }
                held[seat.index()] = held[seat.index()].union(deal.dummy);
            }
            Event::Discarded { seat, card: Some(card) } | Event::CardPlayed { seat, card } => {
                give(&mut held, seat, card)?;
            }
            Event::CardPassed { from, to, card: Some(card) } => {
                give(&mut held, from, card)?;
                held[to.index()].insert(card);
            }
            // Unseen here: any card the passer held may have come.
            Event::CardPassed { from, to, card: None } => {
                held[to.index()] = held[to.index()].union(held[from.index()]);
            }
            Event::Claimed { seat, cards } => {
                if let Some(card) = cards.difference(held[seat.index()]).first() {
                    return Err(Mismatch::NotHeld { seat, card });
                }
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::seq::IndexedRandom;
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::action::Action;
    use crate::game::Game;
    use crate::rules::Preset;

    /// Every viewer of a table: each seat, and a spectator.
    fn viewers(rules: &Rules) -> Vec<Viewer> {
        (0..rules.players).map(|seat| Viewer::Seat(Seat(seat))).chain([Viewer::Spectator]).collect()
    }

    /// Plays `hands` hands of `rules` (actions picked by `choose`), showing
    /// `viewer`'s witness what `viewer` is sent, in the server's order: the
    /// deal, its commitment, the hand's events, the reveal. The server
    /// commits to and reveals `deck(deal)` (the dealt deal's own deck, if
    /// honest). Returns each hand's verdict.
    fn follow(
        rules: Rules,
        seed: u64,
        hands: usize,
        viewer: Viewer,
        deck: impl Fn(&Deal) -> Vec<Card>,
        mut choose: impl FnMut(&[Action]) -> Action,
    ) -> Vec<Verdict> {
        let mut game = Game::new(rules, seed).expect("valid rules");
        let mut witness = Witness::default();
        let salt = |hand: u32| Salt([hand as u8; 32]);
        let commitment = |game: &Game| {
            let number = game.hand_number();
            commit(&deck(game.hand().deal()), &salt(number))
        };
        witness.saw(&game.current_deal_event().for_viewer(viewer));
        witness.committed(0, commitment(&game));
        let mut verdicts = Vec::new();
        while let Some(seat) = game.turn()
            && verdicts.len() < hands
        {
            let hand = game.hand_number();
            let events = game.apply(seat, choose(&game.legal_actions(seat))).expect("legal");
            for event in events.iter() {
                witness.saw(&event.for_viewer(viewer));
                match event {
                    Event::HandEnded { .. } => {
                        let dealt = game.record().hands[hand as usize].deal;
                        verdicts.push(witness.revealed(&rules, hand, &deck(&dealt), &salt(hand)));
                    }
                    Event::HandDealt { number, .. } => {
                        witness.committed(*number, commitment(&game))
                    }
                    _ => {}
                }
            }
        }
        verdicts
    }

    /// Every preset, and the options that move cards between seats: call
    /// for best (a card passed to the loner) with lone defenders.
    fn every_form() -> Vec<Rules> {
        let passing = Rules { call_for_best: true, defend_alone: true, ..Rules::default() };
        Preset::ALL.iter().map(|preset| preset.rules()).chain([passing]).collect()
    }

    #[test]
    fn an_honest_deal_is_verified_in_every_form_by_every_viewer() {
        let mut rng = ChaCha8Rng::seed_from_u64(27);
        for rules in every_form() {
            let mut seen = 0;
            for viewer in viewers(&rules) {
                // Random actions: loners, claims, farmer's hands and all.
                let choose = |actions: &[Action]| *actions.choose(&mut rng).expect("an action");
                for (hand, verdict) in
                    follow(rules, 5, 12, viewer, Deal::deck, choose).into_iter().enumerate()
                {
                    assert_eq!(verdict, Verdict::Verified, "{rules:?} {viewer:?} hand {hand}");
                    seen += 1;
                }
            }
            assert!(seen >= 12, "{rules:?}: {seen} hands checked");
        }
    }

    /// A hand played out card by card by every seat: trump made at once,
    /// no loner, no claim, no concession, no farmer's hand.
    fn played_out(actions: &[Action]) -> Action {
        let plain = |action: &&Action| match action {
            Action::OrderUp { alone } | Action::Call { suit: _, alone } => !alone,
            Action::Pass | Action::CallNoTrump { .. } | Action::Claim | Action::Concede => false,
            Action::FarmersHand | Action::DefendAlone => false,
            _ => true,
        };
        *actions.iter().find(plain).unwrap_or(&Action::Pass)
    }

    /// The deck with seat 0's and seat 1's first cards swapped.
    fn swapped(deal: &Deal) -> Vec<Card> {
        let mut deck = deal.deck();
        deck.swap(0, crate::rules::HAND_SIZE as usize);
        deck
    }

    #[test]
    fn a_deal_committed_and_revealed_as_one_deck_but_dealt_as_another_is_a_mismatch() {
        for preset in [Preset::Standard, Preset::ThreeHanded, Preset::TwoHandedPlain] {
            let rules = preset.rules();
            for viewer in viewers(&rules) {
                let verdicts = follow(rules, 8, 1, viewer, swapped, played_out);
                let expected = match viewer {
                    // Each was dealt the other's card.
                    Viewer::Seat(seat) if seat.0 < 2 => Verdict::Mismatch(Mismatch::Hand { seat }),
                    _ => match &verdicts[0] {
                        Verdict::Mismatch(Mismatch::NotHeld { seat, .. }) if seat.0 < 2 => {
                            verdicts[0].clone()
                        }
                        other => panic!("{preset:?} {viewer:?}: {other:?}"),
                    },
                };
                assert_eq!(verdicts, [expected], "{preset:?} {viewer:?}");
            }
        }
    }

    /// The first deal of a standard game, sealed, as seat 0 saw it dealt.
    fn dealt() -> (Rules, Game, Salt, Witness) {
        let rules = Rules::default();
        let game = Game::new(rules, 3).expect("valid rules");
        let mut witness = Witness::default();
        witness.saw(&game.current_deal_event().for_viewer(Viewer::Seat(Seat(0))));
        (rules, game, Salt([4; 32]), witness)
    }

    #[test]
    fn a_commitment_that_came_after_the_first_bid_is_not_checked() {
        let (rules, mut game, salt, mut witness) = dealt();
        let deal = *game.hand().deal();
        let seat = game.turn().expect("a turn");
        for event in game.apply(seat, Action::Pass).expect("a pass").iter() {
            witness.saw(event);
        }
        witness.committed(0, commit(&deal.deck(), &salt));
        assert_eq!(
            witness.revealed(&rules, 0, &deal.deck(), &salt),
            Verdict::NotChecked(Unchecked::CommittedLate)
        );
    }

    #[test]
    fn without_a_commitment_or_the_deal_seen_a_reveal_is_not_checked() {
        let (rules, game, salt, witness) = dealt();
        let deck = game.hand().deal().deck();
        assert_eq!(
            witness.revealed(&rules, 0, &deck, &salt),
            Verdict::NotChecked(Unchecked::NoCommitment)
        );
        // Joined under way: the commitment comes with the table's snapshot.
        let mut played = game.clone();
        let seat = played.turn().expect("a turn");
        played.apply(seat, Action::Pass).expect("a pass");
        let mut joined = Witness::default();
        joined.joined(&played.view(Viewer::Seat(Seat(0))), Some(commit(&deck, &salt)));
        assert_eq!(
            joined.revealed(&rules, 0, &deck, &salt),
            Verdict::NotChecked(Unchecked::DealNotSeen)
        );
        // Joined before anybody acted: as good as seen dealt.
        for viewer in viewers(&rules) {
            let mut joined = Witness::default();
            joined.joined(&game.view(viewer), Some(commit(&deck, &salt)));
            assert_eq!(joined.revealed(&rules, 0, &deck, &salt), Verdict::Verified, "{viewer:?}");
        }
        let mut other = deck.clone();
        other.swap(0, 5);
        let mut joined = Witness::default();
        joined.joined(&game.view(Viewer::Seat(Seat(1))), Some(commit(&other, &salt)));
        assert_eq!(
            joined.revealed(&rules, 0, &other, &salt),
            Verdict::Mismatch(Mismatch::Hand { seat: Seat(1) })
        );
        // Another hand's reveal: nothing seen of it.
        assert_eq!(
            witness.revealed(&rules, 1, &deck, &salt),
            Verdict::NotChecked(Unchecked::DealNotSeen)
        );
    }

    #[test]
    fn a_reveal_that_is_not_the_pack_or_does_not_hash_is_a_mismatch() {
        let (rules, game, salt, mut witness) = dealt();
        let deck = game.hand().deal().deck();
        witness.committed(0, commit(&deck, &salt));
        let verdict = |deck: &[Card], salt: &Salt| witness.revealed(&rules, 0, deck, salt);
        assert_eq!(verdict(&deck, &salt), Verdict::Verified);
        assert_eq!(verdict(&deck, &Salt([5; 32])), Verdict::Mismatch(Mismatch::Hash));
        let short = &deck[..deck.len() - 1];
        let expected = DealError::WrongDeckSize { held: 23, expected: 24 };
        assert_eq!(verdict(short, &salt), Verdict::Mismatch(Mismatch::NotThePack(expected)));
        let mut twice = deck.clone();
        twice[1] = twice[0];
        let expected = DealError::Duplicate { card: deck[0] };
        assert_eq!(verdict(&twice, &salt), Verdict::Mismatch(Mismatch::NotThePack(expected)));
        let mut foreign = deck.clone();
        foreign[23] = "8s".parse().expect("a card");
        let expected = DealError::NotInPack { card: foreign[23] };
        assert_eq!(verdict(&foreign, &salt), Verdict::Mismatch(Mismatch::NotThePack(expected)));
        // The joker's pack holds 25 cards: the 24 are not it.
        let joker = Rules { joker: true, ..rules };
        let expected = DealError::WrongDeckSize { held: 24, expected: 25 };
        assert_eq!(
            witness.revealed(&joker, 0, &deck, &salt),
            Verdict::Mismatch(Mismatch::NotThePack(expected))
        );
        // Another up-card, sealed as such: the up-card seen is not the deck's.
        let mut other_up = deck.clone();
        other_up.swap(20, 23);
        let mut witness = dealt().3;
        witness.committed(0, commit(&other_up, &salt));
        let verdict = witness.revealed(&rules, 0, &other_up, &salt);
        assert_eq!(
            verdict,
            Verdict::Mismatch(Mismatch::UpCard { seen: deck[20], revealed: deck[23] })
        );
        assert_eq!(verdict.code(), "mismatch");
        assert_eq!(
            verdict.to_string(),
            format!(
                "deal does not match: the up-card was {}, the revealed deck says {}",
                deck[20], deck[23]
            )
        );
    }

    #[test]
    fn a_deck_lays_out_the_deal_it_came_from_in_every_form() {
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        for rules in every_form() {
            let deal = Deal::shuffled(&rules, Seat(1), &mut rng);
            assert_eq!(Deal::from_deck(&rules, Seat(1), &deal.deck()), Ok(deal), "{rules:?}");
        }
    }
}
