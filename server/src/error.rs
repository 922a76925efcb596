//! Errors: `ApiError` for HTTP answers (always the JSON envelope, never a
//! panic), `RunError` for a command that cannot start or keep running.

use app::protocol::ErrorEnvelope;
use axum::{
    http::{header, StatusCode},
    response::{IntoResponse, Response},
    Json,
};
use std::process::ExitCode;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    Unauthorized(&'static str),
    #[error("{0}")]
    Forbidden(&'static str),
    #[error("{0}")]
    NotFound(String),
}

impl ApiError {
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let body = Json(ErrorEnvelope::new(status.as_u16(), self.to_string()));
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

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(
        "port {port} on {host} is already in use; stop the other process or choose another --port"
    )]
    PortInUse { host: String, port: u16 },
    #[error("cannot listen on {host}:{port}: {source}")]
    Bind {
        host: String,
        port: u16,
        source: std::io::Error,
    },
    #[error("{0}")]
    Config(String),
    #[error("the server stopped: {0}")]
    Serve(std::io::Error),
}

impl RunError {
    pub fn exit_code(&self) -> ExitCode {
        ExitCode::FAILURE
    }
}
