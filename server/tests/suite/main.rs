//! The server's integration tests, in one binary: each module was once its
//! own test target, and linking 30-odd release binaries cost more than
//! running them (about 15 minutes of a 2-core CI run). Tests that change
//! process-wide state (`child_env` sets PATH and secrets; `sigkill_recovery`
//! runs without the harness) stay separate targets.
//! Run one area with `cargo test -p codewhale --test suite <module>::`.

#[path = "../common/mod.rs"]
mod common;

mod acp;
mod agent_client_calls;
mod agent_compaction;
mod agent_patch_plan;
mod agent_provider_timeout;
mod agent_runs;
mod agent_symlinks;
mod agent_tools;
mod agent_turns;
mod agent_writes;
mod app_server_cli;
mod automations;
mod cli;
mod contract_findings;
mod diagnostics;
mod doctor;
mod edge_refusals;
mod event_stream;
mod exec_cli;
mod fleet;
mod git_untrusted;
mod instructions;
mod mcp_servers;
mod mobile_cli;
mod mobile_pairing;
mod openapi;
mod origin_rules;
mod review;
mod route_fuzz;
mod served_bytes;
mod sessions;
mod skills;
mod snapshots_undo;
mod stdio;
mod store;
mod tasks;
mod thread_titles;
mod threads_api;
mod turns_api;
mod usage_api;
mod web_bootstrap;
mod workspace_view;
