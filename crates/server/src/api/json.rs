//! JSON answers written by serde_json into a `Vec`.
//!
//! axum's `Json` writes through a `BytesMut` writer, one call for every key,
//! string and punctuation mark; a whole match is thousands of them, and
//! serde_json's own `Vec` writer costs about half as much (in a profile
//! of the server under load, the history check was a fifth of its work).

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use super::ApiError;

/// A JSON body, already serialized.
#[derive(Debug)]
pub struct JsonBody(Vec<u8>);

impl JsonBody {
    /// `value` as JSON; an error (a `500`) only if it cannot be written,
    /// which the API's own types never do.
    pub fn of<T: Serialize + ?Sized>(value: &T) -> Result<JsonBody, ApiError> {
        serde_json::to_vec(value).map(JsonBody).map_err(ApiError::unwritable)
    }

    /// The JSON written.
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }
}

impl IntoResponse for JsonBody {
    fn into_response(self) -> Response {
        ([(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], self.0)
            .into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_body_is_the_json_axum_would_send() {
        let value = serde_json::json!({"a": [1, "two", null], "b": {"c": "\"quoted\""}});
        let ours = JsonBody::of(&value).expect("writes").into_response();
        let axums = axum::Json(&value).into_response();
        assert_eq!(
            ours.headers().get(header::CONTENT_TYPE),
            axums.headers().get(header::CONTENT_TYPE)
        );
        let ours = axum::body::to_bytes(ours.into_body(), usize::MAX).await.expect("body");
        let axums = axum::body::to_bytes(axums.into_body(), usize::MAX).await.expect("body");
        assert_eq!(ours, axums);
    }
}
