//! `codewhale serve --mcp`: the workspace's read-only tools (and, with
//! `--allow-agent`, a whole agent turn) as an MCP server on stdin/stdout.
//!
//! - `server.rs`: the rmcp `ServerHandler` (server info, tools/list,
//!   tools/call) and `serve`, which runs it over stdio.
//! - `tools.rs`: which agent tools are offered, their schemas (the ones the
//!   model sees, from `agent::tools::specs`), argument checks, and the call
//!   into `agent::tools::run` — the same bodies, confined by `Workspace`.
//! - `agent_run.rs`: `codewhale_run`, a turn through `Runtime` like `exec`.
//!
//! stdout carries only the protocol; logs go to stderr (`main.rs`).

mod agent_run;
mod server;
mod tools;

pub use server::{serve, McpServer};
