//! `codewhale doctor`: what this installation has and lacks, for people
//! (`render`) and machines (`--json`, schema `docs/doctor.schema.json`).
//! It only looks: it never creates the home, migrates the store, starts
//! an MCP server, or prints a key (only where one would come from).
//!
//! - `report.rs`: the report's shape and its gathering (config, provider,
//!   key source, memory, MCP config, skills, tools, plugins, sandbox).
//! - `storage.rs`: directory sizes and the store's schema version.
//! - `probe.rs`: whether the provider answers (one short request).
//! - `render.rs`: the readable report.

pub mod probe;
pub mod render;
pub mod report;
pub mod storage;

pub use report::{gather, Report};
