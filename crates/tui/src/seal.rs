//! Provably fair deals, checked here: the server commits to each deal
//! (`deal_committed`, a SHA-256) before anyone bids and reveals the deck and
//! its salt (`deal_revealed`) once the hand is over. This client hashes the
//! reveal itself (`euchre-deal-v1:<deck>:<salt>`, the engine's
//! [`fairness::commit`]) and compares it with the commitment it was sent;
//! it also checks that the revealed deck holds the cards it was dealt and
//! the up-card it saw, so that a matching hash is the deal that was played.
//! docs/security.md describes the scheme.

use euchre_engine::{Card, Commitment, Rules, Salt, fairness};

/// What this client saw of one hand's deal.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Dealt {
    hand: u32,
    /// The seat's own cards as dealt (`None` for a spectator, or when the
    /// table was joined mid-hand).
    own: Option<(u8, Vec<Card>)>,
    up_card: Card,
}

/// How a revealed deal compared with its commitment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The reveal hashes to the commitment, and holds the cards seen.
    Verified,
    /// It does not: the deal was not the one committed to.
    Mismatch,
    /// No commitment was seen for this hand (joined after it was sent, or
    /// the hand was dealt unsealed): nothing to check against.
    Unchecked,
}

/// The current hand's seal and the last reveal's verdict.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Seals {
    dealt: Option<Dealt>,
    /// The commitment sent for a hand, by its number.
    committed: Option<(u32, Commitment)>,
    /// The last hand revealed, and how it compared.
    pub checked: Option<(u32, Verdict)>,
}

impl Seals {
    /// A hand was dealt: `own` is the seat and its cards, if seated.
    pub fn dealt(&mut self, hand: u32, own: Option<(u8, Vec<Card>)>, up_card: Card) {
        self.dealt = Some(Dealt { hand, own, up_card });
        self.committed = None;
    }

    /// The commitment to `hand`'s deal.
    pub fn committed(&mut self, hand: u32, commitment: Commitment) {
        self.committed = Some((hand, commitment));
    }

    /// The commitment to the hand being played, if one came.
    pub fn current(&self) -> Option<(u32, Commitment)> {
        self.committed
    }

    /// `hand` revealed: checks it and keeps the verdict.
    pub fn revealed(&mut self, rules: &Rules, hand: u32, deck: &[Card], salt: &Salt) -> Verdict {
        let verdict = match self.committed.filter(|(committed, _)| *committed == hand) {
            None => Verdict::Unchecked,
            Some((_, commitment)) => {
                let seen = self.dealt.as_ref().filter(|dealt| dealt.hand == hand);
                let hashes = fairness::commit(deck, salt) == commitment;
                if hashes && seen.is_none_or(|dealt| holds_what_was_seen(rules, deck, dealt)) {
                    Verdict::Verified
                } else {
                    Verdict::Mismatch
                }
            }
        };
        self.checked = Some((hand, verdict));
        verdict
    }
}

/// The short form of a commitment shown at the table: its first 8 hex digits.
pub fn short(commitment: &Commitment) -> String {
    commitment.to_string().chars().take(8).collect()
}

/// Whether `deck` (in the committed order: each seat's hand, the dummy, the
/// up-card, the rest) has the seat's own cards and the up-card where they go.
fn holds_what_was_seen(rules: &Rules, deck: &[Card], dealt: &Dealt) -> bool {
    let size = rules.hand_size() as usize;
    let up_at = usize::from(rules.players) * size + rules.dummy_size() as usize;
    if deck.get(up_at) != Some(&dealt.up_card) {
        return false;
    }
    let Some((seat, own)) = &dealt.own else { return true };
    let Some(part) = deck.get(usize::from(*seat) * size..).and_then(|rest| rest.get(..size)) else {
        return false;
    };
    let (mut part, mut own) = (part.to_vec(), own.clone());
    part.sort();
    own.sort();
    part == own
}

#[cfg(test)]
mod tests {
    use euchre_engine::{Game, Preset, Seal};

    use super::*;

    /// A sealed deal of `preset` and what seat 1 was dealt.
    fn sealed(preset: Preset) -> (Rules, Vec<Card>, Salt, Commitment, Vec<Card>, Card) {
        let rules = preset.rules();
        let game = Game::new(rules, 11).expect("valid rules");
        let deal = *game.hand().deal();
        let salt = Salt([9; 32]);
        let seal = Seal::new(&deal, salt);
        let own = deal.hands[1].iter().collect();
        (rules, deal.deck(), salt, seal.commitment, own, deal.up_card)
    }

    #[test]
    fn an_honest_reveal_is_verified_in_every_form() {
        for preset in Preset::ALL {
            let (rules, deck, salt, commitment, own, up) = sealed(preset);
            let mut seals = Seals::default();
            seals.dealt(0, Some((1, own)), up);
            seals.committed(0, commitment);
            assert_eq!(seals.revealed(&rules, 0, &deck, &salt), Verdict::Verified, "{preset:?}");
            assert_eq!(seals.checked, Some((0, Verdict::Verified)));
        }
    }

    #[test]
    fn a_changed_deck_or_salt_or_hand_is_a_mismatch() {
        let (rules, deck, salt, commitment, own, up) = sealed(Preset::Standard);
        let fresh = || {
            let mut seals = Seals::default();
            seals.dealt(0, Some((1, own.clone())), up);
            seals.committed(0, commitment);
            seals
        };
        let mut swapped = deck.clone();
        swapped.swap(0, 10);
        assert_eq!(fresh().revealed(&rules, 0, &swapped, &salt), Verdict::Mismatch);
        assert_eq!(fresh().revealed(&rules, 0, &deck, &Salt([8; 32])), Verdict::Mismatch);
        // The hash matches, but this seat was dealt other cards.
        let mut seals = Seals::default();
        seals.dealt(0, Some((2, own.clone())), up);
        seals.committed(0, commitment);
        assert_eq!(seals.revealed(&rules, 0, &deck, &salt), Verdict::Mismatch);
        // Another hand's commitment checks nothing.
        let mut seals = fresh();
        assert_eq!(seals.revealed(&rules, 1, &deck, &salt), Verdict::Unchecked);
    }

    #[test]
    fn a_commitment_is_shown_by_its_first_eight_digits() {
        let commitment: Commitment = "3f9a2c1b".repeat(8).parse().expect("64 hex digits");
        assert_eq!(short(&commitment), "3f9a2c1b");
    }
}
