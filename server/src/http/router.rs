//! The whole HTTP surface, assembled in one place. Tests call `app()` directly.

use crate::http::{
    assets, auth, cors, error::ApiError, guard, openapi, routes, server_fn_edge, state::AppState,
    web_service::WebService,
};
use axum::{
    extract::{DefaultBodyLimit, Request},
    http::StatusCode,
    middleware, Router,
};
use leptos_axum::{generate_route_list, AxumRouteListing, LeptosRoutes};
use std::sync::OnceLock;
use tower::ServiceBuilder;
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

/// The documented API's routes, built once per process: building them
/// builds the OpenAPI description of every route too (`utoipa_axum`), the
/// largest part of start-up.
fn api_routes() -> Router<AppState> {
    static API: OnceLock<Router<AppState>> = OnceLock::new();
    API.get_or_init(|| openapi::api().0).clone()
}

/// Builds the routes on a blocking thread while the caller opens the
/// store: the server answers sooner when the two overlap. `app` waits for
/// whatever is not finished.
pub fn warm_up() {
    tokio::task::spawn_blocking(|| {
        let _ = api_routes();
        let _ = page_routes();
    });
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
    let routes = Router::new()
        .merge(api_routes())
        .merge(routes::info::unknown_routes())
        .merge(routes::bootstrap::router())
        .merge(routes::pairing::router())
        .leptos_routes_with_context(
            &state,
            pages,
            move || WebService::provide_for_viewer(&service),
            move || app::shell((*options).clone()),
        )
        .fallback(assets::serve)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state.clone());
    // The edge wraps the finished router (outermost first), so a request
    // clones and boxes the stack once. `Router::layer` wraps every route's
    // handler in one more boxed service per layer, each cloned and boxed
    // again on every request.
    let edge = ServiceBuilder::new()
        .layer(TraceLayer::new_for_http().make_span_with(request_span))
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
        // Before anything answers, preflights included.
        .layer(middleware::from_fn_with_state(
            state.gate.clone(),
            guard::guard,
        ))
        // Outside auth: preflights carry no credentials and are answered here.
        .layer(cors)
        // Loads nothing by itself: a session is read when auth asks for it.
        .layer(sessions)
        .layer(middleware::from_fn_with_state(state, auth::authenticate))
        .layer(middleware::from_fn(server_fn_edge::server_fn_edge))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .service(routes);
    Router::new().fallback_service(edge)
}

async fn method_not_allowed() -> ApiError {
    ApiError::Rejected {
        status: StatusCode::METHOD_NOT_ALLOWED,
        message: "method not allowed on this route".into(),
    }
}

/// Spans name the path without its query, and nothing under `/__codewhale/`:
/// the bootstrap and pairing paths carry one-time capabilities that must not
/// reach a log. At debug level: an info span per request costs more than the
/// cheapest routes themselves (`RUST_LOG=codewhale=debug` shows them).
fn request_span(request: &Request) -> tracing::Span {
    if !tracing::enabled!(tracing::Level::DEBUG) {
        return tracing::Span::none();
    }
    let path = request.uri().path();
    let route = if path.starts_with("/__codewhale/") {
        "/__codewhale/…"
    } else {
        path
    };
    tracing::debug_span!("request", method = %request.method(), route)
}
