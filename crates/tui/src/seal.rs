//! Provably fair deals at the table: the commitment shown by its first
//! digits while the hand is played, and each reveal's verdict in words.
//! The check itself is the client library's [`euchre_client::DealWatch`].

use euchre_engine::Commitment;
use euchre_engine::fairness::Verdict;

/// The short form of a commitment shown at the table: its first 8 hex digits.
pub fn short(commitment: &Commitment) -> String {
    commitment.to_string().chars().take(8).collect()
}

/// A verdict for the status line, when it is news: a mismatch, or a deal
/// that could not be checked. A verified deal needs no more than its mark.
pub fn news(hand: u32, verdict: &Verdict) -> Option<String> {
    let hand = hand + 1;
    match verdict {
        Verdict::Verified => None,
        Verdict::Mismatch(why) => {
            Some(format!("MISMATCH: hand {hand}'s deal does not match: {why}."))
        }
        Verdict::NotChecked(why) => Some(format!("Hand {hand}'s deal not checked: {why}.")),
    }
}

#[cfg(test)]
mod tests {
    use euchre_engine::Seat;
    use euchre_engine::fairness::{Mismatch, Unchecked};

    use super::*;

    #[test]
    fn a_commitment_is_shown_by_its_first_eight_digits() {
        let commitment: Commitment = "3f9a2c1b".repeat(8).parse().expect("64 hex digits");
        assert_eq!(short(&commitment), "3f9a2c1b");
    }

    #[test]
    fn a_mismatch_or_an_unchecked_deal_is_news_and_says_why() {
        assert_eq!(news(0, &Verdict::Verified), None);
        let mismatch = Verdict::Mismatch(Mismatch::Hand { seat: Seat(2) });
        assert_eq!(
            news(0, &mismatch).as_deref(),
            Some(
                "MISMATCH: hand 1's deal does not match: seat 2 was dealt other cards than the revealed deck gives it."
            )
        );
        let late = Verdict::NotChecked(Unchecked::CommittedLate);
        assert_eq!(
            news(3, &late).as_deref(),
            Some("Hand 4's deal not checked: its commitment came after the bidding had begun.")
        );
    }
}
