//! A finished match as an EGN file.

use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use euchre_engine::GameStart;
use euchre_engine::egn;
use euchre_store::{MatchDetail, MatchSeat};

use super::error::{ApiError, ErrorBody};
use super::matches::load;
use super::replay::is_over;
use crate::state::AppState;

#[utoipa::path(
    get,
    path = "/api/matches/{id}/egn",
    tag = "matches",
    summary = "A finished match as an EGN file",
    description = "Euchre Game Notation, as an attachment. EGN has no notation for claims \
        and concessions, so the rest of such a hand is written out as legal plays that give the \
        same tricks (the deal's `playAnnotations` say so). EGN cannot express a concession of \
        tricks no play could give away, farmer's hands, or scoring other than 1, 2 and 2 for a \
        made hand, a march and a euchre: such a match is refused with 422 \
        (`egn_inexpressible`).",
    params(("id" = String, Path, description = "The match id")),
    responses(
        (status = 200, description = "The EGN file", body = serde_json::Value,
            headers(("Content-Disposition" = String, description = "attachment; filename=…"))),
        (status = 404, description = "No such match (`not_found`)", body = ErrorBody),
        (status = 409, description = "The match is in progress (`match_in_progress`)", body = ErrorBody),
        (status = 422, description = "EGN cannot express this match (`egn_inexpressible`)", body = ErrorBody),
    )
)]
pub(super) async fn get_egn(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let (file, text) = egn_file(&load(&state, &id).await?)?;
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{file}\""))
        .unwrap_or(HeaderValue::from_static("attachment"));
    Ok((
        [
            (header::CONTENT_TYPE, HeaderValue::from_static("application/json")),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        text,
    )
        .into_response())
}

/// A finished match as an EGN file: its name and its text.
pub(super) fn egn_file(detail: &MatchDetail) -> Result<(String, String), ApiError> {
    let id = &detail.summary.id;
    if !is_over(detail) {
        return Err(ApiError::in_progress(id));
    }
    let names = names_in_joining_order(&detail.record.start, &detail.summary.seats)
        .map_err(ApiError::corrupt)?;
    let text = egn::write(&detail.record, &names).map_err(|error| match error {
        // A claim or concession that does not replay: the stored record is at fault.
        egn::WriteError::PlayOut { .. } => ApiError::corrupt(error),
        error => {
            ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "egn_inexpressible", error.to_string())
        }
    })?;
    // The id is a stored one, but a header is no place to trust that.
    let safe: String = id.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
    Ok((format!("match-{safe}.egn"), text))
}

/// The players' names in joining order, as `egn::write` wants them: the
/// record's seating puts player `seating[seat]` in `seat`.
fn names_in_joining_order(
    start: &GameStart,
    seats: &[MatchSeat],
) -> Result<Vec<String>, NotInSeating> {
    let mut names = vec![String::new(); start.seating.len()];
    for seat in seats {
        let player = start.seating.get(usize::from(seat.seat)).copied();
        let slot = player.and_then(|player| names.get_mut(usize::from(player)));
        *slot.ok_or(NotInSeating { seat: seat.seat })? = seat.name.clone();
    }
    Ok(names)
}

/// A stored seat the record's seating has no player for: a corrupt record.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("seat {seat} is not in the seating")]
struct NotInSeating {
    seat: u8,
}

#[cfg(test)]
mod tests {
    use euchre_engine::{Action, Game, Rules, Seat};

    use super::*;
    use crate::api::import::parse_import;
    use crate::api::testing::{detail, game_in_progress};

    #[test]
    fn finished_matches_export_as_egn_when_egn_can_say_it() {
        let mut game = game_in_progress();
        let in_progress = egn_file(&detail(&game, false)).expect_err("in progress");
        assert_eq!(
            (in_progress.status, in_progress.body.code.as_str()),
            (StatusCode::CONFLICT, "match_in_progress")
        );
        let with_claim = {
            let mut game = game.clone();
            while let Some(seat) = game.turn() {
                let legal = game.legal_actions(seat);
                let claim = legal.iter().find(|a| **a == Action::Claim);
                let other = legal.iter().find(|a| !matches!(a, Action::Concede | Action::Pass));
                let action = claim.or(other).unwrap_or(&Action::Pass);
                game.apply(seat, *action).expect("legal");
            }
            game
        };
        while let Some(seat) = game.turn() {
            let legal = game.legal_actions(seat);
            let action = legal
                .iter()
                .find(|a| !matches!(a, Action::Concede | Action::Claim | Action::Pass))
                .unwrap_or(&Action::Pass);
            game.apply(seat, *action).expect("legal");
        }
        let (name, text) = egn_file(&detail(&game, true)).expect("expressible");
        assert_eq!(name, "match-m.egn");
        let read = egn::read(&text).expect("EGN");
        assert_eq!(read.players, ["P0", "P1", "P2", "P3"]);
        assert_eq!(egn::verify(&read).expect("legal").final_score, game.scores());

        let claimed = with_claim
            .record()
            .hands
            .iter()
            .flat_map(|h| &h.actions)
            .any(|a| a.action == Action::Claim);
        assert!(claimed, "the scenario has a claim");
        // A claim is written out as plays, and the file imports to the same score.
        let (_, text) = egn_file(&detail(&with_claim, true)).expect("a claim is expressible");
        let (record, _) = parse_import(&text, 200).expect("importable");
        assert_eq!((record.scores, record.winner), (with_claim.scores(), with_claim.winner()));

        // A farmer's hand is not.
        let rules = Rules { farmers_hand: true, ..Rules::default() };
        let farmers = (0..200)
            .find_map(|seed| {
                let mut game = Game::new(rules, seed).expect("valid rules");
                while let Some(seat) = game.turn() {
                    let legal = game.legal_actions(seat);
                    let farmers = legal.iter().find(|a| **a == Action::FarmersHand);
                    let other = legal.iter().find(|a| !matches!(a, Action::Concede | Action::Pass));
                    game.apply(seat, *farmers.or(other).unwrap_or(&Action::Pass)).expect("legal");
                }
                let steps = game.record().hands.iter().flat_map(|h| &h.actions);
                steps.clone().any(|a| a.action == Action::FarmersHand).then_some(game)
            })
            .expect("a farmer's hand within 200 games");
        let refused = egn_file(&detail(&farmers, true)).expect_err("a farmer's hand");
        assert_eq!(
            (refused.status, refused.body.code.as_str()),
            (StatusCode::UNPROCESSABLE_ENTITY, "egn_inexpressible")
        );
    }

    #[test]
    fn egn_names_follow_the_seating() {
        let start = GameStart { dealer: Seat(0), seating: [2, 0, 3, 1], shown: Vec::new() };
        let seats: Vec<MatchSeat> = ["S0", "S1", "S2", "S3"]
            .iter()
            .enumerate()
            .map(|(seat, name)| MatchSeat {
                seat: seat as u8,
                player_id: None,
                bot: None,
                name: (*name).to_owned(),
                stand_in: None,
            })
            .collect();
        let names = names_in_joining_order(&start, &seats).expect("a permutation");
        // Player 2 sits in seat 0, so the third name is seat 0's.
        assert_eq!(names, ["S1", "S3", "S0", "S2"]);
        let bad = MatchSeat { seat: 9, ..seats[0].clone() };
        assert_eq!(names_in_joining_order(&start, &[bad]), Err(NotInSeating { seat: 9 }));
    }
}
