//! A hand's actions as one column of its row: four ASCII characters an
//! action, in order (one column, not a row an action: fewer writes).
//!
//! One row an action cost a B-tree insert, seven bound parameters and a JSON
//! encoding to write, and as much again to read. A hand's actions now live
//! in `hands.plays`, and a batch's actions of one hand go in with one
//! statement. Fixed width makes a write idempotent: a run of actions
//! starting at index `i` is written at character `4 * i`, over anything
//! stored there already (the same actions, as a replayed journal brings
//! them), and never after a gap.
//!
//! An action's four characters: its seat (`0`–`9`), its kind, then two that
//! depend on the kind: a card's code (`Jc`, `Th`, `JK`); a suit's letter
//! and whether alone (`hA`, `s-`); whether alone and a filler (`A-`,
//! `--`); or two fillers.
//!
//! | kind | letter | then |
//! |---|---|---|
//! | pass | `p` | `--` |
//! | order up | `o` | alone, `-` |
//! | call | `c` | suit, alone |
//! | call no trump | `n` | alone, `-` |
//! | discard | `d` | card |
//! | play | `P` | card |
//! | farmer's hand | `f` | `--` |
//! | claim | `w` | `--` |
//! | concede | `x` | `--` |
//! | defend alone | `a` | `--` |
//! | pass a card (call for best) | `g` | card |
//! | name the joker's suit | `s` | suit, `-` |

use euchre_engine::{Action, Card, Seat, SeatAction, Suit};

use crate::StoreError;
use crate::conn::{Conn, Decodes, Param};
use crate::rows::ActionRow;

/// Characters an action takes.
pub(crate) const WIDTH: usize = 4;

/// `action` by `seat`, as its four characters; `None` for a seat past 9,
/// which no form has.
pub(crate) fn encode(seat: u8, action: Action) -> Option<[u8; WIDTH]> {
    let seat = (seat < 10).then(|| b'0' + seat)?;
    let alone = |alone: bool| if alone { b'A' } else { b'-' };
    let suit = |suit: Suit| suit.letter() as u8;
    let [kind, first, second] = match action {
        Action::Pass => [b'p', b'-', b'-'],
        Action::OrderUp { alone: a } => [b'o', alone(a), b'-'],
        Action::Call { suit: s, alone: a } => [b'c', suit(s), alone(a)],
        Action::CallNoTrump { alone: a } => [b'n', alone(a), b'-'],
        Action::Discard { card } => with_card(b'd', card),
        Action::Play { card } => with_card(b'P', card),
        Action::FarmersHand => [b'f', b'-', b'-'],
        Action::Claim => [b'w', b'-', b'-'],
        Action::Concede => [b'x', b'-', b'-'],
        Action::DefendAlone => [b'a', b'-', b'-'],
        Action::PassCard { card } => with_card(b'g', card),
        Action::NameSuit { suit: s } => [b's', suit(s), b'-'],
    };
    Some([seat, kind, first, second])
}

fn with_card(kind: u8, card: Card) -> [u8; 3] {
    let [rank, suit] = card.code();
    [kind, rank, suit]
}

/// Appends `action` by `seat` to `plays`; false (and nothing appended) for
/// a seat no form has.
pub(crate) fn push(plays: &mut String, seat: u8, action: Action) -> bool {
    let Some(code) = encode(seat, action) else { return false };
    // Every byte `encode` gives is ASCII.
    code.iter().for_each(|&byte| plays.push(char::from(byte)));
    true
}

/// What is wrong with a hand's stored actions.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum PlaysError {
    #[error("{0:?} is not a run of {WIDTH}-character actions")]
    Length(String),
    #[error("{0:?} is not an action")]
    Action(String),
}

/// A hand's actions read back from `plays`, or what is wrong with them.
pub(crate) fn decode(plays: &str) -> Result<Vec<SeatAction>, PlaysError> {
    if !plays.is_ascii() || !plays.len().is_multiple_of(WIDTH) {
        return Err(PlaysError::Length(plays.to_owned()));
    }
    plays
        .as_bytes()
        .chunks_exact(WIDTH)
        .map(|code| {
            decode_one(code)
                .ok_or_else(|| PlaysError::Action(String::from_utf8_lossy(code).into_owned()))
        })
        .collect()
}

fn decode_one(code: &[u8]) -> Option<SeatAction> {
    let &[seat, kind, first, second] = code else { return None };
    let seat = Seat(char::from(seat).to_digit(10)? as u8);
    let alone = |flag: u8| match flag {
        b'A' => Some(true),
        b'-' => Some(false),
        _ => None,
    };
    let suit = |letter: u8| Suit::from_letter(char::from(letter).to_ascii_lowercase());
    let card = || std::str::from_utf8(&[first, second]).ok()?.parse::<Card>().ok();
    let filler = |byte: u8| (byte == b'-').then_some(());
    let action = match kind {
        b'p' => filler(first).and(filler(second)).map(|()| Action::Pass)?,
        b'o' => Action::OrderUp { alone: alone(first).filter(|_| second == b'-')? },
        b'c' => Action::Call { suit: suit(first)?, alone: alone(second)? },
        b'n' => Action::CallNoTrump { alone: alone(first).filter(|_| second == b'-')? },
        b'd' => Action::Discard { card: card()? },
        b'P' => Action::Play { card: card()? },
        b'f' | b'w' | b'x' | b'a' => {
            filler(first).and(filler(second))?;
            match kind {
                b'f' => Action::FarmersHand,
                b'w' => Action::Claim,
                b'x' => Action::Concede,
                _ => Action::DefendAlone,
            }
        }
        b'g' => Action::PassCard { card: card()? },
        b's' => Action::NameSuit { suit: suit(first).filter(|_| second == b'-')? },
        _ => return None,
    };
    Some(SeatAction { seat, action })
}

/// The actions, a row each, of the next matches after `$1` (in match id
/// order) that still have rows in `actions`.
const LEGACY_ACTIONS: &str = "\
    SELECT match_id, hand, idx, seat, CAST(action AS TEXT) AS action, seq FROM actions \
    WHERE match_id IN ( \
        SELECT DISTINCT match_id FROM actions WHERE match_id > $1 ORDER BY match_id LIMIT 100) \
    ORDER BY match_id, hand, idx";

/// Sets a hand's actions, unless `plays` holds more already (it never
/// does: nothing wrote it before this ran); tells whether the hand is
/// stored.
const ADOPT_PLAYS: &str = "\
    UPDATE hands SET plays = CASE WHEN length(plays) > length($3) THEN plays ELSE $3 END, \
        last_seq = CASE WHEN last_seq > $4 THEN last_seq ELSE $4 END \
    WHERE match_id = $1 AND number = $2 RETURNING number";

const DELETE_ADOPTED: &str = "DELETE FROM actions WHERE match_id = $1 AND hand = $2 AND idx < $3";

/// Moves the actions stored a row each (before migration 0013) into their
/// hands' `plays`, and deletes their rows; run by `migrate`, in one
/// transaction, before anything else reads or writes. A hand whose rows
/// have a gap, or a row that does not read as an action of a seat, keeps
/// its rows from there on, and says so: they are not lost, the server still
/// starts, and reading the match reports it corrupt, as before. Returns how
/// many actions it moved.
pub(crate) async fn adopt_legacy_actions<C: Conn>(conn: &mut C) -> Result<u64, StoreError>
where
    C::Row: Decodes<ActionRow>,
{
    let mut after = String::new();
    let mut moved = 0;
    loop {
        let rows: Vec<ActionRow> = conn
            .fetch_all(LEGACY_ACTIONS, &[Param::Text(Some(&after))])
            .await?
            .iter()
            .map(Decodes::decode)
            .collect::<Result<_, _>>()?;
        let Some(last) = rows.last() else { return Ok(moved) };
        after = last.match_id.clone();
        for hand in rows.chunk_by(|a, b| a.match_id == b.match_id && a.hand == b.hand) {
            let mut plays = String::new();
            let mut last_seq = 0;
            for (index, row) in hand.iter().enumerate() {
                let seat = u8::try_from(row.seat).ok();
                let action = serde_json::from_str::<Action>(&row.action).ok();
                let pushed = seat.zip(action).is_some_and(|(seat, action)| {
                    row.idx == index as i64 && push(&mut plays, seat, action)
                });
                if !pushed {
                    tracing::error!(
                        match_id = row.match_id,
                        hand = row.hand,
                        index = row.idx,
                        "a stored action that does not read, or does not follow its hand's: left in `actions`"
                    );
                    break;
                }
                last_seq = last_seq.max(row.seq);
            }
            let adopted = (plays.len() / WIDTH) as i64;
            if adopted == 0 {
                continue;
            }
            let (match_id, number) = (Param::Text(Some(&hand[0].match_id)), hand[0].hand);
            let params = [
                match_id,
                Param::Int(Some(number)),
                Param::Text(Some(&plays)),
                Param::Int(Some(last_seq)),
            ];
            if conn.fetch_all(ADOPT_PLAYS, &params).await?.is_empty() {
                tracing::error!(
                    match_id = hand[0].match_id,
                    hand = number,
                    "stored actions of a hand that is not stored: left in `actions`"
                );
                continue;
            }
            let params = [match_id, Param::Int(Some(number)), Param::Int(Some(adopted))];
            conn.execute(DELETE_ADOPTED, &params).await?;
            moved += adopted as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use euchre_engine::{Rank, Suit};

    use super::*;

    #[test]
    fn every_action_of_every_seat_reads_back_as_written() {
        let mut plays = String::new();
        let mut written = Vec::new();
        for (index, action) in Action::every().into_iter().enumerate() {
            let seat = (index % 10) as u8;
            assert!(push(&mut plays, seat, action));
            written.push(SeatAction { seat: Seat(seat), action });
        }
        assert_eq!(plays.len(), written.len() * WIDTH);
        assert_eq!(decode(&plays), Ok(written));
        // Distinct actions, distinct codes.
        let codes: std::collections::HashSet<&[u8]> = plays.as_bytes().chunks(WIDTH).collect();
        assert_eq!(codes.len(), Action::every().len());
    }

    #[test]
    fn the_codes_are_as_documented() {
        let jack = Card::new(Rank::Jack, Suit::Clubs);
        let mut plays = String::new();
        push(&mut plays, 1, Action::OrderUp { alone: true });
        push(&mut plays, 0, Action::Discard { card: jack });
        push(&mut plays, 2, Action::Call { suit: Suit::Hearts, alone: false });
        push(&mut plays, 3, Action::Play { card: Card::JOKER });
        push(&mut plays, 3, Action::Pass);
        assert_eq!(plays, "1oA-0dJc2ch-3PJK3p--");
        assert!(!push(&mut plays, 10, Action::Pass), "no form has an eleventh seat");
    }

    #[test]
    fn anything_else_is_refused_with_what_is_wrong() {
        for bad in ["1oA", "1oA-é", "1oAx", "XP9c", "1P9z", "1q--", "1p-x", "1cz-", "1s9-"] {
            assert!(decode(bad).is_err(), "{bad:?} read as actions");
        }
        assert_eq!(decode(""), Ok(Vec::new()));
    }
}
