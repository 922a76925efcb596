//! What every request meets first, in one middleware: the `Host` check (a
//! foreign name is a page that rebound its DNS name to this machine),
//! `/mobile` existing only on a `--mobile` server, and the security headers
//! on every answer, refusals included.

use crate::http::{auth, error::ApiError, headers};
use axum::{
    extract::{Request, State},
    middleware::Next,
    response::{IntoResponse, Response},
};
use std::sync::Arc;

pub async fn guard(
    State(gate): State<Arc<auth::Gate>>,
    mut request: Request,
    next: Next,
) -> Response {
    let mut response = match admit(&gate, &mut request) {
        Ok(()) => next.run(request).await,
        Err(refusal) => refusal.into_response(),
    };
    headers::add_security_headers(&mut response);
    response
}

fn admit(gate: &auth::Gate, request: &mut Request) -> Result<(), ApiError> {
    auth::check_host(gate, request)?;
    let path = request.uri().path();
    let phone_page = path == "/mobile" || path.starts_with("/mobile/");
    if phone_page && !gate.mobile {
        return Err(ApiError::NotFound(
            "there is no /mobile here: start codewhale app-server with --mobile".into(),
        ));
    }
    Ok(())
}
