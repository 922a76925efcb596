//! `GET /__codewhale/bootstrap/{capability}`: exchanges the one-time launch
//! capability for the web session cookie and redirects to `/`.

use crate::http::{
    auth::{BootstrapRefusal, WebAuth},
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

pub fn router() -> Router<AppState> {
    Router::new().route("/__codewhale/bootstrap/{capability}", get(exchange))
}

async fn exchange(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(capability): Path<String>,
) -> Response {
    let Some(web) = state.gate.web.as_ref() else {
        return refusal(
            StatusCode::NOT_FOUND,
            "This server was not started with codewhale web.",
        );
    };
    match web.exchange(peer.ip(), &capability) {
        Ok(session) => {
            tracing::info!("browser signed in through the one-time link");
            let mut response = (StatusCode::SEE_OTHER, [(header::LOCATION, "/")]).into_response();
            if let Ok(cookie) = HeaderValue::from_str(&WebAuth::session_cookie(session)) {
                response.headers_mut().insert(header::SET_COOKIE, cookie);
            }
            response
                .headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            response
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

/// A small script-free page: the browser shows it where the link was opened.
fn refusal(status: StatusCode, message: &str) -> Response {
    let body = format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>codewhale: sign-in refused</title>\
         <link rel=\"stylesheet\" href=\"/pkg/{}.css\"></head>\
         <body><main class=\"page narrow\"><h1>Sign-in refused</h1><p>{message}</p></main></body></html>",
        app::OUTPUT_NAME
    );
    let mut response = (status, Html(body)).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
