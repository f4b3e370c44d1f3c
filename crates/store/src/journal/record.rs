//! A journal record's body: an action, the write that comes by the dozen
//! every hand, in a compact binary form; every other write as JSON.
//!
//! A JSON body begins with `{`; a binary one with a kind byte below it, so a
//! journal written before actions were binary (all JSON) reads as it did.
//! An action's body is
//! `[ACTION][seat: u8][hand: u32][index: u32][seq: u64][at: i64][action: 2 bytes][match id]`
//! (little-endian; the match id is the rest, as UTF-8).

use euchre_engine::{Action, Card, Suit};

use crate::Write;

/// The kind byte of a binary action.
const ACTION: u8 = 1;
/// The bytes of an action's body before its match id.
const ACTION_HEAD: usize = 1 + 1 + 4 + 4 + 8 + 8 + 2;

/// Appends `write`'s body to `out`.
pub(crate) fn encode(write: &Write, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
    match write {
        Write::Action { match_id, hand, index, seat, action, seq, at } => {
            out.reserve(ACTION_HEAD + match_id.len());
            out.extend_from_slice(&[ACTION, *seat]);
            out.extend_from_slice(&hand.to_le_bytes());
            out.extend_from_slice(&index.to_le_bytes());
            out.extend_from_slice(&seq.to_le_bytes());
            out.extend_from_slice(&at.to_le_bytes());
            out.extend_from_slice(&action_bytes(action));
            out.extend_from_slice(match_id.as_bytes());
            Ok(())
        }
        other => serde_json::to_writer(out, other),
    }
}

/// The write in a body [`encode`] made (or an older journal's JSON); `None`
/// if it is neither.
pub(crate) fn decode(body: &[u8]) -> Option<Write> {
    match body.first()? {
        b'{' => serde_json::from_slice(body).ok(),
        &ACTION if body.len() >= ACTION_HEAD => {
            let (head, match_id) = body.split_at(ACTION_HEAD);
            Some(Write::Action {
                seat: head[1],
                hand: u32::from_le_bytes(le(head, 2)?),
                index: u32::from_le_bytes(le(head, 6)?),
                seq: u64::from_le_bytes(le(head, 10)?),
                at: i64::from_le_bytes(le(head, 18)?),
                action: action_from_bytes(le(head, 26)?)?,
                match_id: std::str::from_utf8(match_id).ok()?.to_owned(),
            })
        }
        _ => None,
    }
}

/// The `N` bytes of `bytes` from `at`.
fn le<const N: usize>(bytes: &[u8], at: usize) -> Option<[u8; N]> {
    bytes.get(at..at + N)?.try_into().ok()
}

/// An action as two bytes: its kind, and its card, suit or going alone.
fn action_bytes(action: &Action) -> [u8; 2] {
    let card = |card: &Card| card.index() as u8;
    let suit = |suit: &Suit| suit.index() as u8;
    match action {
        Action::Pass => [0, 0],
        Action::OrderUp { alone } => [1, u8::from(*alone)],
        Action::Call { suit: called, alone } => [2, suit(called) | u8::from(*alone) << 7],
        Action::CallNoTrump { alone } => [3, u8::from(*alone)],
        Action::Discard { card: discarded } => [4, card(discarded)],
        Action::Play { card: played } => [5, card(played)],
        Action::FarmersHand => [6, 0],
        Action::Claim => [7, 0],
        Action::Concede => [8, 0],
        Action::DefendAlone => [9, 0],
        Action::PassCard { card: passed } => [10, card(passed)],
        Action::NameSuit { suit: named } => [11, suit(named)],
    }
}

/// The action [`action_bytes`] made, `None` for bytes it cannot make.
fn action_from_bytes([kind, value]: [u8; 2]) -> Option<Action> {
    let alone = (value <= 1).then_some(value == 1);
    let card = (value <= Card::JOKER.index() as u8).then(|| Card::from_index(value));
    let suit = |value: u8| (value < 4).then(|| Suit::from_index(value));
    Some(match kind {
        0 => Action::Pass,
        1 => Action::OrderUp { alone: alone? },
        2 => Action::Call { suit: suit(value & 0x7f)?, alone: value >> 7 == 1 },
        3 => Action::CallNoTrump { alone: alone? },
        4 => Action::Discard { card: card? },
        5 => Action::Play { card: card? },
        6 => Action::FarmersHand,
        7 => Action::Claim,
        8 => Action::Concede,
        9 => Action::DefendAlone,
        10 => Action::PassCard { card: card? },
        11 => Action::NameSuit { suit: suit(value)? },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn action(action: Action) -> Write {
        Write::Action {
            match_id: "m-0192f7".into(),
            hand: 7,
            index: 300,
            seat: 3,
            action,
            seq: u64::MAX - 5,
            at: 1_732_000_000_123,
        }
    }

    fn round_trip(write: &Write) -> Option<Write> {
        let mut body = Vec::new();
        encode(write, &mut body).expect("encodes");
        decode(&body)
    }

    #[test]
    fn every_action_round_trips_in_a_few_bytes() {
        for each in Action::every() {
            let write = action(each);
            assert_eq!(round_trip(&write), Some(write.clone()));
            let mut body = Vec::new();
            encode(&write, &mut body).expect("encodes");
            assert_eq!(body.len(), ACTION_HEAD + "m-0192f7".len());
        }
    }

    #[test]
    fn other_writes_and_old_json_actions_read_as_before() {
        let closed = Write::TableClosed { id: "t".into(), at: 5 };
        assert_eq!(round_trip(&closed), Some(closed.clone()));
        // An action journaled as JSON, before actions were binary.
        let old = action(Action::Play { card: Card::JOKER });
        let json = serde_json::to_vec(&old).expect("encodes");
        assert_eq!(decode(&json), Some(old));
    }

    #[test]
    fn bytes_no_encoding_makes_are_refused() {
        let mut body = Vec::new();
        encode(&action(Action::Pass), &mut body).expect("encodes");
        assert!(decode(&body[..ACTION_HEAD - 1]).is_none(), "too short");
        let mut unknown = body.clone();
        unknown[ACTION_HEAD - 2] = 200;
        assert!(decode(&unknown).is_none(), "an unknown kind of action");
        let mut not_text = body.clone();
        not_text.push(0xff);
        assert!(decode(&not_text).is_none(), "a match id that is not UTF-8");
        assert!(decode(&[9, 1, 2]).is_none(), "an unknown kind of record");
        assert!(decode(&[]).is_none());
    }
}
