//! Plain axum routes; each area exposes `fn router() -> Router<AppState>`.

pub mod agent_runs;
pub mod approvals;
pub mod automations;
pub mod bootstrap;
pub mod devices;
pub mod diagnostics;
pub mod fleet;
pub mod info;
pub mod mcp;
pub mod pairing;
pub mod review;
pub mod sessions;
pub mod skills;
pub mod snapshots;
pub mod tasks;
pub mod threads;
pub mod tool_calls;
pub mod turns;
pub mod usage;
pub mod user_input;
pub mod workspace;
