//! EGN files imported as finished matches.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use euchre_engine::GameRecord;
use euchre_engine::egn;
use euchre_store::{MatchSeat, Millis, Write};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::error::{ApiError, ErrorBody};
use super::sessions::bearer;
use crate::analysis_queue::Played;
use crate::client_address::ClientAddress;
use crate::clock::now_ms;
use crate::identity;
use crate::state::AppState;

/// The largest EGN file `POST /api/matches/import` takes. Real records are
/// 2 to 25 KiB; a game to 255 points would still fit.
pub const IMPORT_LIMIT: usize = 1024 * 1024;

/// The `table_id` of an imported match: it was played at no table here.
pub const IMPORT_TABLE: &str = "import";

/// An imported match's id.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Imported {
    pub id: String,
}

/// Reads, verifies and converts an EGN file into an engine record, with the
/// players' names by seat. Refused: a file that is not EGN; one of more
/// than `max_hands` deals (`too_many_hands`: each is replayed at every
/// view); a seat's name that a player could not take (`bad_name`, the rules
/// of [`identity::parse_name`]); a record with findings (every step the engine rejects, every contradiction, a wrong
/// dealer, a repeated deal, deals after the game was won, a `finalScore` the
/// deals do not add up to: all of them, in `findings`); a game that starts
/// mid-way (the engine's record has no place for a starting score); and a
/// game nobody has won yet (only finished matches are imported).
pub fn parse_import(text: &str, max_hands: usize) -> Result<(GameRecord, Vec<String>), ApiError> {
    let refused = |code: &str, message: String, at| ApiError::bad_request(code, message).at(at);
    let header = Some(egn::Location { deal: None, step: egn::Step::Header });
    let game = egn::read(text).map_err(|e| refused(e.code(), e.to_string(), e.location()))?;
    if game.deals.len() > max_hands {
        let message =
            format!("the record has {} deals; at most {max_hands} are imported", game.deals.len());
        return Err(refused("too_many_hands", message, header));
    }
    let names = game
        .players
        .iter()
        .enumerate()
        .map(|(seat, name)| {
            identity::parse_name(name).map_err(|_| {
                let message = format!(
                    "seat {seat}'s name {name:?} is not a name a player could take \
                     (1 to 32 characters, no control characters)"
                );
                refused("bad_name", message, header)
            })
        })
        .collect::<Result<Vec<String>, ApiError>>()?;
    let checked = egn::check(&game);
    if !checked.findings.is_empty() {
        return Err(ApiError::findings(&checked.findings));
    }
    let (record, _) =
        egn::to_record(&game).map_err(|e| refused(e.code(), e.to_string(), e.location()))?;
    if record.winner.is_none() {
        let message = format!(
            "the game stops at {:?}, before a side reaches {}: only finished games are imported",
            record.scores, record.rules.points_to_win
        );
        return Err(refused("unfinished_game", message, None));
    }
    Ok((record, names))
}

/// The writes that store `record` as the finished match `id`, as a table
/// would have written them. The seats hold the file's names, not registered
/// players or bots (`player_id` and `bot` are `None`); there is no table
/// event seq, so every action's `seq` is 0; all times are `at`.
pub fn import_writes(id: &str, record: &GameRecord, names: &[String], at: Millis) -> Vec<Write> {
    let seats = names
        .iter()
        .enumerate()
        .map(|(seat, name)| MatchSeat {
            seat: seat as u8,
            player_id: None,
            bot: None,
            name: name.clone(),
            stand_in: None,
        })
        .collect();
    let mut writes = vec![Write::MatchStarted {
        id: id.to_owned(),
        table_id: IMPORT_TABLE.to_owned(),
        number: 1,
        rules: record.rules,
        seed: record.seed,
        start: record.start.clone(),
        seats,
        at,
    }];
    for (number, hand) in record.hands.iter().enumerate() {
        let number = number as u32;
        let (match_id, deal, seal) = (id.to_owned(), hand.deal, hand.seal);
        writes.push(Write::HandDealt { match_id, number, deal, seal });
        for (index, step) in hand.actions.iter().enumerate() {
            writes.push(Write::Action {
                match_id: id.to_owned(),
                hand: number,
                index: index as u32,
                seat: step.seat.0,
                action: step.action,
                seq: 0,
                at,
            });
        }
        if let Some(outcome) = hand.outcome {
            writes.push(Write::HandEnded { match_id: id.to_owned(), number, outcome, at });
        }
    }
    writes.push(Write::MatchEnded {
        match_id: id.to_owned(),
        scores: record.scores.as_slice().to_vec(),
        winner: record.winner.map(|team| team.0),
        at,
        games: record.games.clone(),
    });
    writes
}

#[utoipa::path(
    post,
    path = "/api/matches/import",
    tag = "matches",
    summary = "Import a finished game from EGN",
    description = "The body is an EGN file (at most 1 MiB). The engine replays every deal and \
        reads the whole file, as a referee would: a record with findings (reneges, with the \
        holding that proves them; deals that cannot be replayed; an incomplete deal; a wrong \
        dealer; a repeated deal; deals after the game was won) is refused with every finding in \
        `findings`, each with its code, message and `location`, the first also as the answer's \
        `code`, `message` and `location`. Refused too: \
        games that start mid-way (`starts_mid_game`: the engine's record always starts at 0 to \
        0), unfinished games (`unfinished_game`) and a `finalScore` the deals do not add up to \
        (`final_score_differs`), more deals than the server imports (`too_many_hands`, 200 by \
        default) and a seat's name a player could not take (`bad_name`). Seats take the file's \
        player names, as guests (no player id). \
        Where the file gives no hands, the stored deal is the engine's reconstruction. The match \
        is durable when this answers and appears in the list a moment later. Only an account \
        may import (a log-in session's bearer token; a guest's token is `not_an_account`), so \
        many times an hour per account and per address (20 and 60 by default).",
    request_body(content = serde_json::Value, description = "An EGN file", content_type = "application/json"),
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Imported", body = Imported,
            headers(("Location" = String, description = "/api/matches/{id}"))),
        (status = 400, description = "Not EGN, not legal, or not importable; `location` says where, `findings` lists every finding", body = ErrorBody),
        (status = 401, description = "`no_token`, `bad_token` or `session_expired`", body = ErrorBody),
        (status = 403, description = "A guest's token: only accounts import (`not_an_account`)", body = ErrorBody),
        (status = 413, description = "Larger than 1 MiB (`too_large`)", body = ErrorBody),
        (status = 429, description = "Too many imports from this account or address \
            (`too_many_imports`), or too many requests (`rate_limited`)", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
        (status = 503, description = "The journal did not take it (`unavailable`)", body = ErrorBody),
    )
)]
pub(super) async fn import_match(
    State(state): State<AppState>,
    Extension(ClientAddress(address)): Extension<ClientAddress>,
    request: Request,
) -> Result<Response, ApiError> {
    // Who and how often first, so nobody else's file is even read.
    let account = state.accounts.account(bearer(request.headers())?).await?;
    state.api_limits.import(&account.id, address).map_err(|wait| {
        let message = "too many imports from this account or address; try again later";
        ApiError::new(StatusCode::TOO_MANY_REQUESTS, "too_many_imports", message).retry_after(wait)
    })?;
    let body = Bytes::from_request(request, &state).await.map_err(|rejection| {
        let status = rejection.status();
        let code = if status == StatusCode::PAYLOAD_TOO_LARGE { "too_large" } else { "bad_body" };
        ApiError::new(status, code, rejection.body_text())
    })?;
    let text = String::from_utf8(body.to_vec())
        .map_err(|_| ApiError::bad_request("not_utf8", "an EGN file is UTF-8 JSON"))?;
    // Every deal replayed: on the blocking pool, off the tables' workers.
    let max_hands = state.api_limits.import_max_hands;
    let (record, names) = tokio::task::spawn_blocking(move || parse_import(&text, max_hands))
        .await
        .map_err(|_| {
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "import_failed",
                "the import could not be read",
            )
        })??;
    let id = uuid::Uuid::now_v7().to_string();
    let writes = import_writes(&id, &record, &names, now_ms());
    state.recorder.record_and_wait(writes).await.map_err(|error| {
        tracing::error!(%error, "an import could not be journaled");
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            "the import could not be stored",
        )
    })?;
    // Anyone may import many: they queue apart from the games people play here.
    state.analyses.match_ended(&id, record, Played::InBulk);
    let location = HeaderValue::from_str(&format!("/api/matches/{id}"))
        .unwrap_or(HeaderValue::from_static("/api/matches"));
    Ok((StatusCode::CREATED, [(header::LOCATION, location)], Json(Imported { id })).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/fixtures/egn");

    fn fixture(name: &str) -> String {
        std::fs::read_to_string(format!("{FIXTURES}/{name}.egn")).expect("a shared fixture")
    }

    #[test]
    fn seat_names_follow_the_players_rules_and_deals_have_a_cap() {
        let file: serde_json::Value = serde_json::from_str(&fixture("MotE_W5_G1")).expect("JSON");
        let deals = file["deals"].as_array().expect("deals").len();
        let (_, names) = parse_import(&file.to_string(), deals).expect("at the cap");
        assert_eq!(names.len(), 4);
        let over = parse_import(&file.to_string(), deals - 1).expect_err("past the cap").body;
        assert_eq!(over.code, "too_many_hands");
        assert_eq!(over.location.map(|at| at.step), Some(egn::Step::Header));

        for bad in ["", "   ", "a\u{7}b", &"x".repeat(33)] {
            let mut named = file.clone();
            named["metadata"]["players"][0] = bad.into();
            let refused = parse_import(&named.to_string(), 200).expect_err("a bad name").body;
            assert_eq!(refused.code, "bad_name", "{bad:?}");
        }
        // A name is kept as the players' rules give it back: trimmed.
        let mut padded = file.clone();
        padded["metadata"]["players"][0] = "  Ann ".into();
        let (_, names) = parse_import(&padded.to_string(), 200).expect("a padded name");
        assert_eq!(names[0], "Ann");
    }

    #[test]
    fn imports_keep_every_step_and_refuse_what_a_match_cannot_be() {
        let (record, names) = parse_import(&fixture("MotE_W5_G1"), 200).expect("importable");
        assert_eq!((record.scores.as_slice(), record.winner.map(|t| t.0)), (&[10, 3][..], Some(0)));
        let writes = import_writes("m1", &record, &names, 5);
        assert!(matches!(&writes[0], Write::MatchStarted { table_id, seats, .. }
            if table_id == IMPORT_TABLE && seats.iter().all(|s| s.player_id.is_none() && s.bot.is_none())));
        assert!(matches!(
            writes.last(),
            Some(Write::MatchEnded { scores, winner: Some(0), .. }) if scores == &[10, 3]
        ));
        let actions = writes.iter().filter(|w| matches!(w, Write::Action { .. })).count();
        let expected: usize = record.hands.iter().map(|h| h.actions.len()).sum();
        assert_eq!(actions, expected);
        let ended = writes.iter().filter(|w| matches!(w, Write::HandEnded { .. })).count();
        assert_eq!(ended, record.hands.len());

        let refusal = |text: &str| parse_import(text, 200).expect_err("refused").body;
        let mid_game = refusal(&fixture("Six_Points_in_Two_Hands"));
        assert_eq!(mid_game.code, "starts_mid_game");
        assert!(mid_game.location.is_some());
        assert_eq!(refusal(&fixture("Custom_Scenario")).code, "unfinished_game");
        assert_eq!(refusal("{").code, "not_json");
        assert_eq!(refusal("{\"fileType\": \"PGN\"}").code, "not_egn");
        assert_eq!(refusal("{").findings, None);

        // A record with several findings: all of them, the first also on top.
        let mut file: serde_json::Value =
            serde_json::from_str(&fixture("MotE_W5_G1")).expect("JSON");
        let deals = file["deals"].as_array_mut().expect("deals");
        let repeated = deals[2].clone();
        deals.insert(3, repeated);
        file["metadata"]["finalScore"] = serde_json::json!([10, 4]);
        let refused = refusal(&file.to_string());
        let findings = refused.findings.expect("findings");
        let codes: Vec<&str> = findings.iter().map(|f| f.code.as_str()).collect();
        assert_eq!(codes, ["repeated_deal", "final_score_differs"]);
        assert_eq!(
            (refused.code.as_str(), refused.location),
            ("repeated_deal", findings[0].location)
        );
    }
}
