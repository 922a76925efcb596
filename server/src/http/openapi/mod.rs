//! The OpenAPI 3.1 document of the runtime API, generated from the code:
//! each handler's `#[utoipa::path]` attribute registers its route and
//! describes it at once (`utoipa_axum::routes!`), and every body's schema
//! is derived from the `protocol` type the handler really sends. What no
//! attribute can say — the statuses every route shares, the event stream's
//! one-schema-per-event union — is added here. `GET /v1/openapi.json` and
//! `codewhale openapi` serve it; `openapi/codewhale-v1.json` is the
//! committed copy a test holds it to.

mod automation_rules;
mod errors;
mod events;
mod fleet_rules;
mod mcp_rules;
mod rules;
mod sessions_rules;
mod skills_rules;

pub use events::{FleetStreamFrame, StreamEvent, StreamFrame};

use crate::http::{routes, state::AppState};
use axum::Router;
use std::sync::OnceLock;
use utoipa::{
    openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme},
    Modify, OpenApi,
};
use utoipa_axum::router::OpenApiRouter;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "codewhale runtime API",
        description = include_str!("intro.md"),
        license(name = "MIT", identifier = "MIT"),
    ),
    servers((url = "http://127.0.0.1:7878", description = "`codewhale app-server --http` (the port is yours to choose)")),
    modifiers(&Security),
    security(
        ("bearer" = []),
        ("runtimeTokenHeader" = []),
        ("deepseekRuntimeTokenHeader" = []),
        ("runtimeTokenCookie" = []),
        ("sessionCookie" = []),
    ),
    components(schemas(
        protocol::ErrorEnvelope,
        protocol::ErrorBody,
        protocol::EventEnvelope,
        // What `review_finding` and `review_action` items carry in `metadata`.
        protocol::ReviewFinding,
        protocol::ReviewAction,
    )),
    tags(
        (name = "runtime", description = "Health, capabilities and this document (public)"),
        (name = "threads", description = "Threads: create, list, read, change, fork, resume"),
        (name = "turns", description = "Turns: start, steer, interrupt, compact"),
        (name = "events", description = "The thread's durable, replayable event stream (SSE)"),
        (name = "approvals", description = "Answers to `approval.required`"),
        (name = "user-input", description = "Answers to `user_input.required`"),
        (name = "tool-calls", description = "Results of client-executed (dynamic) tools"),
        (name = "usage", description = "Tokens and cost"),
        (name = "devices", description = "Phones paired with `--mobile`"),
        (name = "snapshots", description = "Workspace snapshots, restore, undo, retry, edit and fork-at-message"),
        (name = "review", description = "Review findings applied as a turn, and reverted with a compare-and-swap"),
        (name = "workspace", description = "The workspace: browse, read files, git status, the diff against HEAD"),
        (name = "tasks", description = "Turns queued to run with no client attached"),
        (name = "automations", description = "Prompts run on a schedule, each run a task"),
        (name = "fleet", description = "Workers side by side, each in its own git worktree and branch, with the run's event stream"),
        (name = "agent-runs", description = "Receipts of the sub-agents models spawned (read-only)"),
        (name = "skills", description = "Skills offered to the model (`SKILL.md` folders), their import and toggles"),
        (name = "diagnostics", description = "Reports safe to share: the configuration without its values"),
        (name = "sessions", description = "Conversations saved as files, and resumed as threads"),
        (name = "mcp", description = "MCP servers from config.toml whose tools the model may call, their state and tools"),
    ),
)]
struct ApiDoc;

/// The credentials `/v1` accepts (`http/auth/credentials.rs`).
struct Security;

impl Modify for Security {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        let header = |name: &str, about: &str| {
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(name, about)))
        };
        let cookie = |name: &str, about: &str| {
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::with_description(name, about)))
        };
        let schemes = [
            (
                "bearer",
                SecurityScheme::Http(
                    HttpBuilder::new()
                        .scheme(HttpAuthScheme::Bearer)
                        .description(Some(
                            "The runtime token the server was started with (`--auth-token` or `CODEWHALE_RUNTIME_TOKEN`)",
                        ))
                        .build(),
                ),
            ),
            ("runtimeTokenHeader", header("X-Codewhale-Runtime-Token", "The runtime token in a header")),
            ("deepseekRuntimeTokenHeader", header("X-DeepSeek-Runtime-Token", "The runtime token, under the reference API's header name")),
            ("runtimeTokenCookie", cookie("codewhale_runtime_token", "The runtime token in a cookie; only with an `Origin` of this server")),
            ("sessionCookie", cookie("codewhale_web_session", "The workbench's or a paired phone's session (HttpOnly, SameSite=Strict); only with an `Origin` of this server")),
        ];
        for (name, scheme) in schemes {
            components.add_security_scheme(name, scheme);
        }
    }
}

/// Every documented route, and the document describing them. Both come
/// from the same `routes!` registrations, so neither can lack the other.
pub fn api() -> (Router<AppState>, utoipa::openapi::OpenApi) {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .merge(routes::info::router())
        .merge(routes::threads::router())
        .merge(routes::turns::router())
        .merge(routes::approvals::router())
        .merge(routes::user_input::router())
        .merge(routes::tool_calls::router())
        .merge(routes::usage::router())
        .merge(routes::devices::router())
        .merge(routes::snapshots::router())
        .merge(routes::review::router())
        .merge(routes::workspace::router())
        .merge(routes::tasks::router())
        .merge(routes::automations::router())
        .merge(routes::fleet::router())
        .merge(routes::agent_runs::router())
        .merge(routes::skills::router())
        .merge(routes::mcp::router())
        .merge(routes::sessions::router())
        .merge(routes::diagnostics::router())
        .split_for_parts()
}

/// The finished document as JSON.
pub fn document() -> serde_json::Value {
    let (_, openapi) = api();
    let mut document = serde_json::to_value(&openapi).unwrap_or_default();
    rules::add(&mut document);
    errors::add_shared_responses(&mut document);
    document
}

/// The document as pretty JSON with a final newline (what is committed),
/// built once per process. The top-level fields come in the
/// specification's order; below them, alphabetically.
pub fn document_json() -> &'static str {
    #[derive(serde::Serialize)]
    struct Ordered<'a> {
        openapi: &'a serde_json::Value,
        info: &'a serde_json::Value,
        servers: &'a serde_json::Value,
        security: &'a serde_json::Value,
        tags: &'a serde_json::Value,
        paths: &'a serde_json::Value,
        components: &'a serde_json::Value,
    }
    static JSON: OnceLock<String> = OnceLock::new();
    JSON.get_or_init(|| {
        let document = document();
        let ordered = Ordered {
            openapi: &document["openapi"],
            info: &document["info"],
            servers: &document["servers"],
            security: &document["security"],
            tags: &document["tags"],
            paths: &document["paths"],
            components: &document["components"],
        };
        let mut text = serde_json::to_string_pretty(&ordered).unwrap_or_default();
        text.push('\n');
        text
    })
}
