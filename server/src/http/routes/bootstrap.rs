//! `GET /__codewhale/bootstrap/{capability}`: exchanges the one-time launch
//! capability for the workbench session cookie and redirects to `/`.

use crate::http::{
    auth::{sessions::OWNER_KEY, BootstrapRefusal, Owner},
    extract::Path,
    state::AppState,
};
use axum::{
    extract::{ConnectInfo, State},
    http::{header, HeaderValue, StatusCode},
    response::{Html, IntoResponse, Response},
    routing::get,
    Router,
};
use std::net::SocketAddr;
use tower_sessions::{Expiry, Session};

pub fn router() -> Router<AppState> {
    Router::new().route("/__codewhale/bootstrap/{capability}", get(exchange))
}

async fn exchange(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    session: Session,
    Path(capability): Path<String>,
) -> Response {
    let Some(web) = state.gate.web.as_ref() else {
        return refusal(
            StatusCode::NOT_FOUND,
            "This server was not started with codewhale web.",
        );
    };
    match web.exchange(peer.ip(), &capability) {
        Ok(()) => {
            let remaining = time::Duration::try_from(web.session_remaining()).unwrap_or_default();
            if let Err(error) = start_session(
                &session,
                Owner::Workbench,
                Expiry::AtDateTime(time::OffsetDateTime::now_utc() + remaining),
            )
            .await
            {
                tracing::error!(%error, "cannot start the workbench session");
                return refusal(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "The session could not be started.",
                );
            }
            tracing::info!("browser signed in through the one-time link");
            see_other("/")
        }
        Err(BootstrapRefusal::NotLoopback) => {
            tracing::warn!(peer = %peer.ip(), "refused a sign-in attempt from outside this machine");
            refusal(
                StatusCode::FORBIDDEN,
                "Sign-in links only work from this machine (loopback).",
            )
        }
        Err(BootstrapRefusal::Malformed | BootstrapRefusal::Unavailable) => {
            tracing::warn!("refused an invalid, used or expired sign-in link");
            refusal(
                StatusCode::UNAUTHORIZED,
                "This sign-in link is not valid: each link works once, for ten minutes. \
                 Stop codewhale web and start it again for a fresh link.",
            )
        }
    }
}

/// Starts a fresh session (a new id, whatever the browser held before: no
/// session fixation) owned by `owner`; tower-sessions sends its cookie.
pub async fn start_session(
    session: &Session,
    owner: Owner,
    expiry: Expiry,
) -> Result<(), tower_sessions::session::Error> {
    session.cycle_id().await?;
    session.clear().await;
    session.set_expiry(Some(expiry));
    session.insert(OWNER_KEY, owner).await
}

/// A redirect nobody caches.
pub fn see_other(to: &'static str) -> Response {
    let mut response = (StatusCode::SEE_OTHER, [(header::LOCATION, to)]).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

fn refusal(status: StatusCode, message: &str) -> Response {
    refusal_page(status, "Sign-in refused", message)
}

/// A small script-free page: the browser shows it where the link was opened.
pub fn refusal_page(status: StatusCode, title: &str, message: &str) -> Response {
    let body = format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>codewhale: {title}</title>\
         <link rel=\"stylesheet\" href=\"/pkg/{}.css\"></head>\
         <body><main class=\"page narrow\"><h1>{title}</h1><p>{message}</p></main></body></html>",
        app::OUTPUT_NAME
    );
    let mut response = (status, Html(body)).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
