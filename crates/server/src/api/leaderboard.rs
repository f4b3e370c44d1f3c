//! The leaderboard: accounts ranked by rating, one board per game form.

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use euchre_engine::GameForm;
use euchre_protocol::api::{AccountPlayer, Leaderboard, Place};
use serde::Deserialize;
use utoipa::IntoParams;

use super::error::{ApiError, ErrorBody};
use super::query::parse_limit;
use crate::state::AppState;

/// Places per page unless `limit` says otherwise, and the most it may say.
/// Far past any board, and far from overflowing a rank.
const MAX_OFFSET: u32 = 1_000_000;

/// The filters of `GET /api/leaderboard`.
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct BoardParams {
    /// `partnership` (the default), `cutthroat`, `three_handed`, `two_handed` or
    /// `two_handed_plain`.
    #[param(schema_with = game_forms)]
    pub form: Option<String>,
    /// Places per page, 1 to 100 (default 20).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    pub limit: Option<String>,
    /// Places to skip: the `next_offset` of the previous page.
    #[param(value_type = Option<u32>)]
    pub offset: Option<String>,
}

/// The `form` parameter's schema: the forms' names, and nothing else (its
/// description here: a parameter with its own schema loses its doc comment).
fn game_forms() -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .description(Some("The game form; `partnership` by default."))
        .enum_values(Some(GameForm::ALL.iter().map(|form| form.name())))
        .build()
}

impl BoardParams {
    /// The form, the page size and the offset, or the first thing wrong.
    fn parse(&self) -> Result<(GameForm, u32, u32), ApiError> {
        let form = match self.form.as_deref() {
            None => GameForm::Partnership,
            Some(name) => GameForm::from_name(name).ok_or_else(|| {
                let names: Vec<&str> = GameForm::ALL.iter().map(|form| form.name()).collect();
                let message = format!("form must be one of {}, not {name:?}", names.join(", "));
                ApiError::bad_request("bad_form", message)
            })?,
        };
        let limit = parse_limit(self.limit.as_deref())?;
        let offset = match self.offset.as_deref() {
            None => 0,
            Some(text) => {
                text.parse::<u32>().ok().filter(|offset| *offset <= MAX_OFFSET).ok_or_else(
                    || {
                        let message = format!("offset must be 0 to {MAX_OFFSET}, not {text:?}");
                        ApiError::bad_request("bad_offset", message)
                    },
                )?
            }
        };
        Ok((form, limit, offset))
    }
}

#[utoipa::path(
    get,
    path = "/api/leaderboard",
    tag = "players",
    summary = "The leaderboard of a game form",
    description = "Accounts ranked by their Glicko-2 rating in the form, best first (equal \
        ratings by player id). Only accounts are rated. Pages follow `next_offset`.",
    params(BoardParams),
    responses(
        (status = 200, description = "A page of the board", body = Leaderboard),
        (status = 400, description = "`bad_form`, `bad_limit`, `bad_offset` or `bad_query`",
            body = ErrorBody),
    )
)]
pub(super) async fn leaderboard(
    State(state): State<AppState>,
    params: Result<Query<BoardParams>, QueryRejection>,
) -> Result<Json<Leaderboard>, ApiError> {
    let Query(params) =
        params.map_err(|rejection| ApiError::bad_request("bad_query", rejection.body_text()))?;
    let (form, limit, offset) = params.parse()?;
    // One more than asked, to know whether another page follows.
    let mut entries =
        state.store.leaderboard(form.name(), limit + 1, offset).await.map_err(ApiError::store)?;
    let more = entries.len() > limit as usize;
    entries.truncate(limit as usize);
    let places = entries
        .into_iter()
        .zip(offset + 1..)
        .map(|(entry, rank)| Place {
            rank,
            player: AccountPlayer { id: entry.player.id, name: entry.player.name },
            rating: entry.rating.rating.round() as i32,
            deviation: entry.rating.deviation.round() as i32,
            games: entry.games,
        })
        .collect();
    Ok(Json(Leaderboard {
        form: form.name().to_owned(),
        places,
        next_offset: more.then_some(offset + limit),
    }))
}
