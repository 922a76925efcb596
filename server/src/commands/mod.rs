//! The subcommands that run something: each reads flags and config, builds
//! one `Runtime` and hands it to its transport.

pub mod acp;
pub mod app_server;
pub mod diagnostics;
pub mod doctor;
pub mod exec;
pub mod mcp_server;
pub mod mobile;
pub mod openapi;
pub mod pair;
pub mod stdio;
pub mod web;

use crate::{
    agent::Agent, config::Config, error::RunError, pricing::Pricing, runtime::RuntimeOptions,
};
use std::{path::PathBuf, sync::Arc, time::Duration};

/// The runtime every command runs: the real agent and prices from
/// config.toml, the store under `home`.
pub fn runtime_options(
    home: PathBuf,
    config: &Config,
    default_workspace: PathBuf,
    wait_timeout: Duration,
) -> RuntimeOptions {
    RuntimeOptions {
        home,
        engine: Arc::new(Agent::from_config(config)),
        pricing: Pricing::from_config(config),
        default_workspace,
        wait_timeout,
        clock: Default::default(),
        sub_agents: config.subagents.limits(),
    }
}

/// What a serving process runs besides its requests: the task queue and
/// the automation scheduler.
pub fn run_background(runtime: &Arc<crate::runtime::Runtime>, config: &Config) {
    runtime.run_tasks(config.tasks.concurrency());
    runtime.run_automations(config.automations.catch_up);
}

/// The directory codewhale was started in: where new threads work.
pub fn current_dir() -> Result<PathBuf, RunError> {
    std::env::current_dir().map_err(|e| RunError::Config(e.to_string()))
}
