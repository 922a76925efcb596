//! Pairing a phone. `GET /__codewhale/pair/{capability}` consumes a
//! one-time capability at once and answers with the device's session
//! cookie and a redirect to `/mobile`; `POST /__codewhale/pair/token` does
//! the same for a runtime token typed into `/mobile` (for a phone that
//! cannot scan). Both 404 unless the server runs with `--mobile`.

use super::bootstrap::{refusal_page, see_other, start_session};
use crate::{
    http::{
        auth::{device_expiry, sessions::OWNER_KEY, Owner, RuntimeToken},
        extract::Path,
        state::AppState,
    },
    runtime::devices::{Manager, PairingRefusal},
};
use axum::{
    extract::{ConnectInfo, State},
    http::{header, HeaderMap, Method, StatusCode},
    response::Response,
    routing::{get, post},
    Form, Router,
};
use serde::Deserialize;
use std::net::SocketAddr;
use tower_sessions::Session;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/__codewhale/pair/token", post(with_token))
        .route("/__codewhale/pair/{capability}", get(with_capability))
}

const PAIR_AGAIN: &str = "Ask for a new link on the computer running codewhale: \
    the workbench's \u{201c}Pair a phone\u{201d} button, or <code>codewhale pair</code>.";

async fn with_capability(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    method: Method,
    session: Session,
    headers: HeaderMap,
    Path(capability): Path<String>,
) -> Response {
    if !state.gate.mobile {
        return not_mobile();
    }
    // A HEAD or a browser's prefetch is not the phone opening the link: it
    // must not spend it.
    let prefetch = ["sec-purpose", "purpose", "x-moz"].iter().any(|name| {
        headers
            .get(*name)
            .is_some_and(|v| v.as_bytes().starts_with(b"prefetch"))
    });
    if method == Method::HEAD || prefetch {
        return refusal_page(
            StatusCode::BAD_REQUEST,
            "Pairing link",
            "Open this link on the phone to pair it.",
        );
    }
    if !state.gate.attempts.allowed(peer.ip()) {
        return too_many();
    }
    match state.runtime.devices().redeem(&capability) {
        Ok(label) => pair(&state, &session, &headers, peer, label).await,
        Err(PairingRefusal::Malformed | PairingRefusal::Unavailable) => {
            state.gate.attempts.failed(peer.ip());
            tracing::warn!(peer = %peer.ip(), "refused an invalid, used or expired pairing link");
            refusal_page(
                StatusCode::UNAUTHORIZED,
                "Pairing refused",
                &format!("This pairing link is not valid: each one works once, for a few minutes. {PAIR_AGAIN}"),
            )
        }
    }
}

#[derive(Deserialize)]
struct TokenForm {
    token: String,
}

async fn with_token(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    session: Session,
    headers: HeaderMap,
    Form(form): Form<TokenForm>,
) -> Response {
    if !state.gate.mobile {
        return not_mobile();
    }
    // A page elsewhere must not sign this phone in to someone's server.
    if !from_own_page(&state, &headers) {
        return refusal_page(
            StatusCode::FORBIDDEN,
            "Pairing refused",
            "This form only works from this server's own /mobile page.",
        );
    }
    if !state.gate.attempts.allowed(peer.ip()) {
        return too_many();
    }
    let valid = state
        .gate
        .token
        .as_ref()
        .is_some_and(|token: &RuntimeToken| token.matches(form.token.trim()));
    if !valid {
        state.gate.attempts.failed(peer.ip());
        tracing::warn!(peer = %peer.ip(), "refused a wrong runtime token on /mobile");
        return refusal_page(
            StatusCode::UNAUTHORIZED,
            "Pairing refused",
            "That runtime token is not this server's. Go back and try again, or scan a pairing link instead.",
        );
    }
    pair(&state, &session, &headers, peer, None).await
}

/// The form was posted by this server's page: same-origin by Fetch
/// Metadata when the browser sends it, and an `Origin` of this server.
fn from_own_page(state: &AppState, headers: &HeaderMap) -> bool {
    let site_ok = headers
        .get("sec-fetch-site")
        .is_none_or(|site| site.as_bytes() == b"same-origin");
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let origin = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok());
    let origin_ok = match (host, origin) {
        (Some(host), Some(origin)) => origin == format!("{}://{host}", state.gate.scheme),
        _ => false,
    };
    site_ok && origin_ok
}

async fn pair(
    state: &AppState,
    session: &Session,
    headers: &HeaderMap,
    peer: SocketAddr,
    label: Option<String>,
) -> Response {
    let user_agent = headers
        .get(header::USER_AGENT)
        .and_then(|ua| ua.to_str().ok());
    let address = peer.ip().to_canonical().to_string();
    let device = match state
        .runtime
        .devices()
        .create(label, user_agent, &address)
        .await
    {
        Ok(device) => device,
        Err(error) => {
            tracing::error!(%error, "cannot record a paired device");
            return refusal_page(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Pairing failed",
                "The device could not be recorded. Try again.",
            );
        }
    };
    // Pairing again replaces the device this browser was (one row per phone).
    if let Ok(Some(Owner::Device { id: old })) = session.get::<Owner>(OWNER_KEY).await {
        let _ = state
            .runtime
            .devices()
            .revoke(Manager::Computer, &old)
            .await;
    }
    let expiry = device_expiry(state);
    if let Err(error) = start_session(
        session,
        Owner::Device {
            id: device.id.clone(),
        },
        expiry,
    )
    .await
    {
        tracing::error!(%error, "cannot start a device session");
        return refusal_page(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Pairing failed",
            "The session could not be started. Try again.",
        );
    }
    tracing::info!(device = %device.id, name = %device.name, peer = %address, "paired a device");
    see_other("/mobile")
}

fn too_many() -> Response {
    refusal_page(
        StatusCode::TOO_MANY_REQUESTS,
        "Pairing refused",
        "Too many failed attempts from this address. Wait ten minutes, then try again.",
    )
}

fn not_mobile() -> Response {
    refusal_page(
        StatusCode::NOT_FOUND,
        "Not found",
        "This server does not pair phones (start it with --mobile).",
    )
}
