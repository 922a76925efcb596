//! One middleware over the whole router: classifies the route, identifies the
//! caller, enforces auth where the route needs it, and leaves the resulting
//! `Viewer` in the request extensions for pages and server functions.

use super::credentials::{check_open_access, identify, RequestKind};
use super::{Gate, Viewer};
use crate::http::error::ApiError;
use axum::{
    extract::{Request, State},
    middleware::Next,
    response::{IntoResponse, Response},
};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Access {
    /// Health, runtime info and the bootstrap exchange.
    Public,
    /// `/v1/*` and server functions under `/api/`.
    Protected,
    /// Pages and static assets: open, but pages show data only to a viewer.
    Page,
}

fn classify(path: &str) -> Access {
    match path {
        "/health" | "/v1/runtime/info" => Access::Public,
        _ if path.starts_with("/__codewhale/bootstrap/") => Access::Public,
        "/v1" | "/api" => Access::Protected,
        _ if path.starts_with("/v1/") || path.starts_with("/api/") => Access::Protected,
        _ => Access::Page,
    }
}

pub async fn authenticate(
    State(gate): State<Arc<Gate>>,
    mut request: Request,
    next: Next,
) -> Response {
    let viewer = match classify(request.uri().path()) {
        Access::Public => Viewer::Anonymous,
        // --insecure-no-auth (loopback only, checked at start-up).
        Access::Protected if gate.token.is_none() => {
            if let Err(refusal) = check_open_access(&gate, request.method(), request.headers()) {
                return refusal.into_response();
            }
            Viewer::NoAuth
        }
        Access::Protected => {
            match identify(&gate, RequestKind::Api, request.method(), request.headers()) {
                Ok(viewer) if viewer.is_authenticated() => viewer,
                Ok(_) => {
                    return ApiError::Unauthorized("runtime API bearer token required")
                        .into_response()
                }
                Err(refusal) => return refusal.into_response(),
            }
        }
        Access::Page => identify(
            &gate,
            RequestKind::Page,
            request.method(),
            request.headers(),
        )
        .unwrap_or(Viewer::Anonymous),
    };
    request.extensions_mut().insert(viewer);
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_are_classified() {
        assert_eq!(classify("/health"), Access::Public);
        assert_eq!(classify("/v1/runtime/info"), Access::Public);
        assert_eq!(classify("/__codewhale/bootstrap/x"), Access::Public);
        assert_eq!(classify("/v1/threads"), Access::Protected);
        assert_eq!(classify("/v1"), Access::Protected);
        assert_eq!(classify("/v1/runtime/info/"), Access::Protected);
        assert_eq!(classify("/api/ping"), Access::Protected);
        assert_eq!(classify("/"), Access::Page);
        assert_eq!(classify("/pkg/codewhale.js"), Access::Page);
        assert_eq!(classify("/v1x"), Access::Page);
    }
}
