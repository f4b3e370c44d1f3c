//! The body of every error answer of the HTTP API: `{code, message}`, and
//! for a refused EGN import where in the file and every finding.

use euchre_engine::egn::{self, Location};
use serde::{Deserialize, Serialize};

/// Every error's body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorBody {
    /// A stable snake_case code: `bad_limit`, `not_found`, `must_follow_suit`, …
    pub code: String,
    /// What went wrong, for people.
    pub message: String,
    /// For a refused EGN import: where in the file, as the engine names it
    /// (`deal` is an index into `deals`; `step` is `header`, `setup`, `call`
    /// with `index`, `discard`, `card` with `trick` and `card`, or `end`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub location: Option<Location>,
    /// For an EGN import the engine refused: every finding in the file, in
    /// its order (the first is also `code`, `message` and `location`). The
    /// engine reads the whole file, as a referee would, so one answer names
    /// every renege, damaged deal, wrong dealer and so on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub findings: Option<Vec<FindingBody>>,
}

/// One finding in a refused EGN import.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FindingBody {
    /// `must_follow_suit`, `inconsistent_record`, `incomplete_deal`,
    /// `dealer_out_of_turn`, `repeated_deal`, `repeated_deal_number`,
    /// `played_after_game_over`, `final_score_differs`, or another of the
    /// engine's codes.
    pub code: String,
    /// What is wrong, for people: a renege names the card and the holding
    /// that proves it.
    pub message: String,
    /// Where in the file, as `ErrorBody.location`.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub location: Option<Location>,
}

impl From<&egn::Finding> for FindingBody {
    fn from(finding: &egn::Finding) -> FindingBody {
        FindingBody {
            code: finding.code().to_owned(),
            message: finding.to_string(),
            location: finding.location(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_import_refusal_reads_back_with_its_place_in_the_file() {
        let json = serde_json::json!({
            "code": "must_follow_suit",
            "message": "a renege",
            "location": {"deal": 2, "step": "card", "trick": 1, "card": 3},
            "findings": [{"code": "must_follow_suit", "message": "a renege", "location": null}],
        });
        let body: ErrorBody = serde_json::from_value(json.clone()).expect("reads");
        assert_eq!(
            body.location,
            Some(Location { deal: Some(2), step: egn::Step::Card { trick: 1, card: 3 } })
        );
        assert_eq!(serde_json::to_value(&body).expect("writes"), json);
    }
}
