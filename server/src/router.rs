//! The whole HTTP surface, assembled in one place. Tests call `app()` directly.

use crate::{assets, auth, headers, routes, state::AppState};
use axum::{
    extract::{MatchedPath, Request},
    middleware, Router,
};
use leptos::prelude::provide_context;
use leptos_axum::{generate_route_list, LeptosRoutes};
use tower_http::{compression::CompressionLayer, trace::TraceLayer};

pub fn app(state: AppState) -> Router {
    let options = state.leptos_options.clone();
    let workbench = state.workbench.clone();
    let pages = generate_route_list(app::App);
    Router::new()
        .merge(routes::runtime::router())
        .merge(routes::bootstrap::router())
        .leptos_routes_with_context(
            &state,
            pages,
            move || provide_context(workbench.clone()),
            move || app::shell(options.clone()),
        )
        .fallback(assets::serve)
        .layer(middleware::from_fn_with_state(
            state.clone(),
            auth::authenticate,
        ))
        .layer(middleware::from_fn(headers::security_headers))
        .layer(CompressionLayer::new())
        .layer(TraceLayer::new_for_http().make_span_with(request_span))
        .with_state(state)
}

/// Spans name the route pattern, never the raw path: the bootstrap path
/// carries a one-time capability that must not reach a log.
fn request_span(request: &Request) -> tracing::Span {
    let route = match request.extensions().get::<MatchedPath>() {
        Some(matched) => matched.as_str().to_string(),
        None if request.uri().path().starts_with("/__codewhale/") => "/__codewhale/…".to_string(),
        None => request.uri().path().to_string(),
    };
    tracing::info_span!("request", method = %request.method(), route)
}
