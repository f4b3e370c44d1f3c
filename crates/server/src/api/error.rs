//! The API's error answers: a status and a JSON `{code, message}` body.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use euchre_engine::egn::{self, Location};
pub use euchre_protocol::api::{ErrorBody, FindingBody};
use euchre_store::StoreError;

use crate::accounts::AccountError;

/// An error answer: the status and a JSON body.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    /// Boxed: every handler's `Result` carries an `ApiError`, kept small.
    pub body: Box<ErrorBody>,
    /// For a `429` (or `503 server_full`, `503 busy`): seconds to wait, sent as `Retry-After`.
    pub retry_after: Option<u32>,
}

impl ApiError {
    pub(crate) fn new(status: StatusCode, code: &str, message: impl Into<String>) -> ApiError {
        let body = ErrorBody {
            code: code.to_owned(),
            message: message.into(),
            location: None,
            findings: None,
        };
        ApiError { status, body: Box::new(body), retry_after: None }
    }

    /// An EGN import refused for its findings: the first in the usual
    /// fields, all of them in `findings`.
    pub(super) fn findings(findings: &[egn::Finding]) -> ApiError {
        let findings: Vec<FindingBody> = findings.iter().map(FindingBody::from).collect();
        let first = findings.first().cloned().unwrap_or_else(|| FindingBody {
            code: "invalid_egn".to_owned(),
            message: "the record was refused".to_owned(),
            location: None,
        });
        let mut error = ApiError::bad_request(&first.code, first.message).at(first.location);
        error.body.findings = Some(findings);
        error
    }

    /// With `Retry-After`: `wait` in whole seconds, rounded up (a client
    /// waiting that long is let in).
    pub(crate) fn retry_after(mut self, wait: std::time::Duration) -> ApiError {
        let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        self.retry_after = Some(u32::try_from(seconds).unwrap_or(u32::MAX));
        self
    }

    pub(super) fn bad_request(code: &str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, code, message)
    }

    pub(super) fn at(mut self, location: Option<Location>) -> ApiError {
        self.body.location = location;
        self
    }

    pub(super) fn match_not_found(id: &str) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", format!("no match {id:?}"))
    }

    pub(super) fn table_not_found(id: &str) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", format!("no table {id:?}"))
    }

    pub(super) fn in_progress(id: &str) -> ApiError {
        let message = format!("match {id:?} is in progress: its record is public once it ends");
        ApiError::new(StatusCode::CONFLICT, "match_in_progress", message)
    }

    /// The store failed: the details go to the log, not to the client.
    pub(super) fn store(error: StoreError) -> ApiError {
        tracing::error!(%error, "match history: the store failed");
        match error {
            StoreError::Database(_) => ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "store_unavailable",
                "the database is not answering; try again shortly",
            ),
            _ => ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "store_error",
                "the stored history could not be read",
            ),
        }
    }

    /// An answer serde_json could not write: a bug of ours, never the client's.
    pub(super) fn unwritable(error: serde_json::Error) -> ApiError {
        tracing::error!(%error, "an API answer could not be written as JSON");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal_error",
            "the answer could not be written",
        )
    }

    /// A stored record the engine does not accept: corruption, not the client's fault.
    pub(super) fn corrupt(what: impl std::fmt::Display) -> ApiError {
        tracing::error!(problem = %what, "match history: a stored match does not replay");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "corrupt_record",
            "the stored match could not be replayed",
        )
    }
}

impl From<AccountError> for ApiError {
    fn from(error: AccountError) -> ApiError {
        let status = match error {
            AccountError::BadName | AccountError::WeakPassword => StatusCode::BAD_REQUEST,
            AccountError::NameTaken | AccountError::AlreadyClaimed => StatusCode::CONFLICT,
            AccountError::BadCredentials
            | AccountError::NoToken
            | AccountError::BadToken
            | AccountError::SessionExpired => StatusCode::UNAUTHORIZED,
            AccountError::NotAnAccount | AccountError::Banned(_) => StatusCode::FORBIDDEN,
            AccountError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            AccountError::Busy | AccountError::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        };
        let answer = ApiError::new(status, error.code(), error.to_string());
        match error {
            AccountError::RateLimited { retry_after } => answer.retry_after(retry_after),
            AccountError::Busy => answer.retry_after(crate::accounts::BUSY_RETRY),
            _ => answer,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, Json(self.body)).into_response();
        if let Some(seconds) = self.retry_after {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}
