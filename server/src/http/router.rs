//! The whole HTTP surface, assembled in one place. Tests call `app()` directly.

use crate::http::{
    assets, auth, cors, error::ApiError, headers, openapi, routes, server_fn_edge, state::AppState,
    web_service::WebService,
};
use axum::{
    extract::{DefaultBodyLimit, MatchedPath, Request, State},
    http::StatusCode,
    middleware, Router,
};
use leptos_axum::{generate_route_list, AxumRouteListing, LeptosRoutes};
use std::sync::OnceLock;
use tower_http::{
    compression::{
        predicate::{NotForContentType, Predicate, SizeAbove},
        CompressionLayer,
    },
    trace::TraceLayer,
};

/// Request bodies above this are refused with 413.
pub const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// The page routes, generated once per process. Generating them runs the app
/// with a process-wide "suppress resource loads" flag raised: a page render
/// that first polls a resource meanwhile (another router being built in the
/// same process, as tests do) would wait forever (leptos-rs/leptos#4773).
fn page_routes() -> Vec<AxumRouteListing> {
    static ROUTES: OnceLock<Vec<AxumRouteListing>> = OnceLock::new();
    ROUTES.get_or_init(|| generate_route_list(app::App)).clone()
}

pub fn app(state: AppState) -> Router {
    let options = state.leptos_options.clone();
    let service: std::sync::Arc<dyn app::service::RuntimeService> =
        std::sync::Arc::new(WebService {
            runtime: state.runtime.clone(),
            workbench: (*state.workbench).clone(),
            pairing: state.pairing.clone(),
        });
    let sessions = auth::SessionStores::new(state.runtime.store().pool().clone())
        .layer(state.gate.scheme == "https");
    let pages = page_routes();
    let cors = cors::layer(&state.gate.cors_origins);
    // The documented API (`openapi::api`), then what is not an API
    // operation: unknown /v1 paths, the sign-in and pairing exchanges.
    let (api, _) = openapi::api();
    Router::new()
        .merge(api)
        .merge(routes::info::unknown_routes())
        .merge(routes::bootstrap::router())
        .merge(routes::pairing::router())
        .leptos_routes_with_context(
            &state,
            pages,
            move || WebService::provide_for_viewer(&service),
            move || app::shell(options.clone()),
        )
        .fallback(assets::serve)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(middleware::from_fn_with_state(
            state.gate.clone(),
            mobile_only,
        ))
        .layer(middleware::from_fn(server_fn_edge::server_fn_edge))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            auth::authenticate,
        ))
        // Loads nothing by itself: a session is read when auth asks for it.
        .layer(sessions)
        // Outside auth: preflights carry no credentials and are answered here.
        .layer(cors)
        // Before anything answers, preflights included: a foreign Host is a
        // page that rebound its DNS name to this machine.
        .layer(middleware::from_fn_with_state(
            state.gate.clone(),
            auth::check_host,
        ))
        .layer(middleware::from_fn(headers::security_headers))
        // Small bodies are sent as they are: compressing a 64-byte answer
        // costs more than it saves (static assets are precompressed).
        .layer(
            CompressionLayer::new().compress_when(
                SizeAbove::new(1024)
                    .and(NotForContentType::GRPC)
                    .and(NotForContentType::IMAGES)
                    .and(NotForContentType::SSE),
            ),
        )
        .layer(TraceLayer::new_for_http().make_span_with(request_span))
        .with_state(state)
}

/// `/mobile` exists only on a `--mobile` server.
async fn mobile_only(
    State(gate): State<std::sync::Arc<auth::Gate>>,
    request: Request,
    next: middleware::Next,
) -> axum::response::Response {
    let path = request.uri().path();
    let phone_page = path == "/mobile" || path.starts_with("/mobile/");
    if phone_page && !gate.mobile {
        return axum::response::IntoResponse::into_response(ApiError::NotFound(
            "there is no /mobile here: start codewhale app-server with --mobile".into(),
        ));
    }
    next.run(request).await
}

async fn method_not_allowed() -> ApiError {
    ApiError::Rejected {
        status: StatusCode::METHOD_NOT_ALLOWED,
        message: "method not allowed on this route".into(),
    }
}

/// Spans name the route pattern, never the raw path: the bootstrap path
/// carries a one-time capability that must not reach a log. At debug level:
/// an info span per request costs more than the cheapest routes themselves
/// (`RUST_LOG=codewhale=debug` shows them).
fn request_span(request: &Request) -> tracing::Span {
    if !tracing::enabled!(tracing::Level::DEBUG) {
        return tracing::Span::none();
    }
    let route = match request.extensions().get::<MatchedPath>() {
        Some(matched) => matched.as_str().to_string(),
        None if request.uri().path().starts_with("/__codewhale/") => "/__codewhale/…".to_string(),
        None => request.uri().path().to_string(),
    };
    tracing::debug_span!("request", method = %request.method(), route)
}
