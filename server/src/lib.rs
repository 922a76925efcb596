//! codewhale's server: a local coding-agent runtime in one binary. The
//! binary (`main.rs`) is a thin shell over this library so that tests drive
//! the real parts. `docs/ARCHITECTURE.md` is the map; in short:
//!
//! - `commands/`: `web`, `app-server`, `exec` — parse flags, build one
//!   [`runtime::Runtime`], hand it to a transport.
//! - `http/`: the HTTP edge (router, auth, CORS, headers, extractors,
//!   assets, `/v1` routes, the Leptos server-function edge).
//! - `runtime/`: the operations every transport calls, and their rules.
//! - `store/`: SQLite, the only place SQL lives.
//! - `agent/`, `provider/`: the model-backed engine and its tools.
//! - `child/`: every process codewhale starts.
//! - `workspace/`: the user's files: confinement (every path), snapshots.

pub mod acp;
pub mod agent;
pub mod child;
pub mod cli;
pub mod clock;
pub mod commands;
pub mod config;
pub mod diagnostics;
pub mod doctor;
pub mod error;
pub mod home;
pub mod http;
pub mod jsonrpc;
pub mod mcp;
pub mod mcp_client;
pub mod pricing;
pub mod provider;
pub mod random;
pub mod runtime;
pub mod store;
pub mod text;
pub mod workspace;
