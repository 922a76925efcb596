//! `ApiError`: every HTTP answer that is an error (always the JSON envelope,
//! never a panic). Runtime errors become HTTP statuses here and only here.

use crate::runtime::error::RuntimeError;
use axum::{
    extract::rejection::{JsonRejection, PathRejection, QueryRejection},
    http::{header, StatusCode},
    response::{IntoResponse, Response},
    Json,
};
use protocol::ErrorEnvelope;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    Unauthorized(&'static str),
    #[error("{0}")]
    Forbidden(&'static str),
    #[error("{0}")]
    NotFound(String),
    #[error("request body is larger than the 16 MiB limit")]
    PayloadTooLarge,
    #[error("{message}")]
    Rejected { status: StatusCode, message: String },
    /// What a runtime operation refused or failed at.
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
}

impl ApiError {
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Rejected { status, .. } => *status,
            ApiError::Runtime(error) => StatusCode::from_u16(error.kind().status())
                .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        ApiError::BadRequest(message.into())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let ApiError::Runtime(error) = &self {
            if let Some(detail) = error.internal_detail() {
                tracing::error!(error = %detail, "request failed");
            }
        }
        let status = self.status();
        let mut envelope = ErrorEnvelope::new(status.as_u16(), self.to_string());
        if let ApiError::Runtime(RuntimeError::Conflicts { paths, .. }) = &self {
            envelope.error.conflicts = Some(paths.clone());
        }
        let body = Json(envelope);
        let mut response = (status, body).into_response();
        if status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                header::HeaderValue::from_static("Bearer realm=\"codewhale\""),
            );
        }
        response
    }
}

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> Self {
        match rejection.status() {
            StatusCode::PAYLOAD_TOO_LARGE => ApiError::PayloadTooLarge,
            // Syntax, type and unknown-field errors are all the client's: 400.
            StatusCode::UNPROCESSABLE_ENTITY => ApiError::BadRequest(rejection.body_text()),
            status => ApiError::Rejected {
                status,
                message: rejection.body_text(),
            },
        }
    }
}

impl From<QueryRejection> for ApiError {
    fn from(rejection: QueryRejection) -> Self {
        ApiError::BadRequest(rejection.body_text())
    }
}

impl From<PathRejection> for ApiError {
    fn from(rejection: PathRejection) -> Self {
        match rejection.status() {
            // A route/handler mismatch is ours, not the client's.
            StatusCode::INTERNAL_SERVER_ERROR => ApiError::Rejected {
                status: StatusCode::INTERNAL_SERVER_ERROR,
                message: "internal error".into(),
            },
            _ => ApiError::BadRequest(format!("invalid path: {}", rejection.body_text())),
        }
    }
}
