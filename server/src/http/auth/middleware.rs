//! One middleware over the whole router: classifies the route, identifies the
//! caller, enforces auth where the route needs it, and leaves the resulting
//! `Viewer` in the request extensions for pages and server functions.

use super::credentials::{check_open_access, has_header_token, identify, RequestKind};
use super::sessions::{Owner, OWNER_KEY};
use super::viewer::DeviceId;
use super::Viewer;
use crate::{
    http::{error::ApiError, state::AppState},
    runtime::devices::Seen,
};
use axum::{
    body::Body,
    extract::{ConnectInfo, Request, State},
    middleware::Next,
    response::{IntoResponse, Response},
};
use futures::StreamExt;
use std::net::SocketAddr;
use tower_sessions::{Expiry, Session};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Access {
    /// Health, runtime info, the OpenAPI document, the sign-in and pairing
    /// exchanges.
    Public,
    /// `/v1/*` and server functions under `/api/`.
    Protected,
    /// Pages and static assets: open, but pages show data only to a viewer.
    Page,
}

fn classify(path: &str) -> Access {
    match path {
        "/health" | "/v1/runtime/info" | "/v1/openapi.json" => Access::Public,
        _ if path.starts_with("/__codewhale/") => Access::Public,
        "/v1" | "/api" => Access::Protected,
        _ if path.starts_with("/v1/") || path.starts_with("/api/") => Access::Protected,
        _ => Access::Page,
    }
}

pub async fn authenticate(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    let gate = &state.gate;
    let access = classify(request.uri().path());
    let session = request.extensions().get::<Session>().cloned();
    let owner = match (access, &session) {
        (Access::Public, _) | (_, None) => None,
        _ if has_header_token(request.headers()) => None,
        (_, Some(session)) => session_owner(session).await,
    };
    let kind = match access {
        Access::Public => {
            request.extensions_mut().insert(Viewer::Anonymous);
            return next.run(request).await;
        }
        Access::Protected => RequestKind::Api,
        Access::Page => RequestKind::Page,
    };
    let identified = if gate.token.is_none() && access == Access::Protected {
        // --insecure-no-auth (loopback only, checked at start-up).
        check_open_access(gate, request.method(), request.headers()).map(|()| Viewer::NoAuth)
    } else {
        identify(
            gate,
            kind,
            request.method(),
            request.headers(),
            owner.as_ref(),
        )
    };
    let mut viewer = match identified {
        Ok(viewer) => viewer,
        Err(refusal) if access == Access::Protected => return refusal.into_response(),
        Err(_) => Viewer::Anonymous,
    };
    let mut device = None;
    if let (Viewer::Device, Some(Owner::Device { id })) = (viewer, &owner) {
        let address = request
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(peer)| peer.ip().to_canonical().to_string())
            .unwrap_or_else(|| "unknown".into());
        match device_still_paired(&state, session.as_ref(), &address, id).await {
            Ok(true) => device = Some(id.clone()),
            Ok(false) => viewer = Viewer::Anonymous,
            Err(unavailable) => return unavailable.into_response(),
        }
    }
    if access == Access::Protected && !viewer.is_authenticated() {
        let had_session = request
            .headers()
            .get_all(axum::http::header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .any(|v| v.contains(super::sessions::SESSION_COOKIE));
        return ApiError::Unauthorized(if had_session {
            "this session has ended (it expired or its device was revoked); pair again"
        } else {
            "runtime API bearer token required"
        })
        .into_response();
    }
    request.extensions_mut().insert(viewer);
    let Some(device) = device else {
        return next.run(request).await;
    };
    request.extensions_mut().insert(DeviceId(device.clone()));
    // Whatever this device is sent (event streams above all) stops the
    // moment it is revoked.
    let revoked = state.runtime.devices().revoked(device);
    let response = next.run(request).await;
    let (parts, body) = response.into_parts();
    let body = Body::from_stream(body.into_data_stream().take_until(revoked));
    Response::from_parts(parts, body)
}

/// Whose session the request's cookie names (loading it from its store).
async fn session_owner(session: &Session) -> Option<Owner> {
    match session.get::<Owner>(OWNER_KEY).await {
        Ok(owner) => owner,
        Err(error) => {
            tracing::error!(%error, "cannot read a session");
            None
        }
    }
}

/// A device session is only as good as its device record: a revoked
/// device's session is deleted on sight. While paired, its last-seen time
/// and address are recorded, and its session's expiry slides forward (at
/// most once a minute, when tower-sessions saves it and resends the cookie).
/// A store failure is a 503, not a signed-out phone.
async fn device_still_paired(
    state: &AppState,
    session: Option<&Session>,
    address: &str,
    id: &str,
) -> Result<bool, ApiError> {
    match state.runtime.devices().seen(id, address).await {
        Ok(Seen::Known { slide }) => {
            if let (true, Some(session)) = (slide, session) {
                session.set_expiry(Some(device_expiry(state)));
            }
            Ok(true)
        }
        Ok(Seen::Revoked) => {
            if let Some(session) = session {
                let _ = session.flush().await;
            }
            Ok(false)
        }
        Err(error) => {
            tracing::error!(error = %error, "cannot check a device");
            Err(ApiError::Rejected {
                status: axum::http::StatusCode::SERVICE_UNAVAILABLE,
                message: "cannot check this device right now; try again".into(),
            })
        }
    }
}

/// How long a device session lives without a request.
pub fn device_expiry(state: &AppState) -> Expiry {
    let days = state
        .pairing
        .as_ref()
        .map_or(crate::config::DEFAULT_DEVICE_SESSION_DAYS, |p| {
            p.session_days
        });
    Expiry::OnInactivity(time::Duration::days(i64::from(days)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_are_classified() {
        assert_eq!(classify("/health"), Access::Public);
        assert_eq!(classify("/v1/runtime/info"), Access::Public);
        assert_eq!(classify("/v1/openapi.json"), Access::Public);
        assert_eq!(classify("/__codewhale/bootstrap/x"), Access::Public);
        assert_eq!(classify("/__codewhale/pair/x"), Access::Public);
        assert_eq!(classify("/v1/threads"), Access::Protected);
        assert_eq!(classify("/v1"), Access::Protected);
        assert_eq!(classify("/v1/runtime/info/"), Access::Protected);
        assert_eq!(classify("/api/ping"), Access::Protected);
        assert_eq!(classify("/"), Access::Page);
        assert_eq!(classify("/pkg/codewhale.js"), Access::Page);
        assert_eq!(classify("/v1x"), Access::Page);
    }
}
