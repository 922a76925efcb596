//! The HTTP edge of the Leptos server functions under `/api/`. Leptos reads
//! their bodies without axum's `DefaultBodyLimit` and answers every failure
//! with 500; here they get `/v1`'s body limit (413, JSON) and the status
//! their typed error (`app::error::ServiceError`) stands for.

use crate::http::{error::ApiError, router::MAX_BODY_BYTES};
use app::error::ServiceError;
use axum::{
    body::Body,
    extract::Request,
    http::{header, StatusCode},
    middleware::Next,
    response::{IntoResponse, Response},
};

/// Set by server_fn on every error response it encodes.
const SERVER_FN_ERROR_HEADER: &str = "serverfnerror";
/// Encoded errors are a status and a message; anything longer is not ours.
const MAX_ERROR_BYTES: usize = 64 * 1024;

pub async fn server_fn_edge(request: Request, next: Next) -> Response {
    if !request.uri().path().starts_with("/api/") {
        return next.run(request).await;
    }
    let request = match limit_body(request).await {
        Ok(request) => request,
        Err(refusal) => return refusal.into_response(),
    };
    with_error_status(next.run(request).await).await
}

/// The request with its body read in full, up to the limit.
async fn limit_body(request: Request) -> Result<Request, ApiError> {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|length| length > MAX_BODY_BYTES as u64) {
        return Err(ApiError::PayloadTooLarge);
    }
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, MAX_BODY_BYTES)
        .await
        .map_err(|error| {
            let too_long = std::error::Error::source(&error)
                .is_some_and(|e| e.is::<http_body_util::LengthLimitError>());
            if too_long {
                ApiError::PayloadTooLarge
            } else {
                ApiError::bad_request("the request body could not be read")
            }
        })?;
    Ok(Request::from_parts(parts, Body::from(bytes)))
}

/// A server function's error answered with the status it carries (server_fn
/// itself always says 500). Redirects of plain form posts are left alone.
async fn with_error_status(response: Response) -> Response {
    if response.status() != StatusCode::INTERNAL_SERVER_ERROR
        || !response.headers().contains_key(SERVER_FN_ERROR_HEADER)
    {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_ERROR_BYTES).await else {
        return ApiError::Rejected {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            message: "internal error".into(),
        }
        .into_response();
    };
    if let Some(status) = serde_json::from_slice::<ServiceError>(&bytes)
        .ok()
        .and_then(|error| StatusCode::from_u16(error.status).ok())
        .filter(|status| status.is_client_error() || status.is_server_error())
    {
        parts.status = status;
    }
    Response::from_parts(parts, Body::from(bytes))
}
