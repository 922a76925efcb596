//! `codewhale serve --mcp`: the workspace tools as an MCP stdio server
//! (the server itself is `crate::mcp`).

use super::{current_dir, runtime_options};
use crate::{
    agent::tools::{ToolEnv, Workspace},
    config::Config,
    error::RunError,
    home,
    mcp::{self, McpServer},
    runtime::Runtime,
};
use std::{path::PathBuf, sync::Arc, time::Duration};

pub async fn run(workspace: Option<PathBuf>, allow_agent: bool) -> Result<(), RunError> {
    let dir = match workspace {
        Some(dir) => dir,
        None => current_dir()?,
    };
    let workspace = Workspace::new(&dir, false).map_err(|e| RunError::Config(e.0))?;
    if !workspace.root().is_dir() {
        return Err(RunError::Config(format!(
            "the workspace {} is not a directory",
            dir.display()
        )));
    }
    let agent = if allow_agent {
        let home = home::resolve()?;
        let config = Config::load(&home)?;
        // Nobody can answer an approval over MCP: waiting zero seconds
        // denies every write and command at once, as `exec` does.
        let options = runtime_options(
            home,
            &config,
            workspace.root().to_path_buf(),
            Duration::ZERO,
        );
        Some(Arc::new(Runtime::open(options).await?))
    } else {
        None
    };
    let env = ToolEnv::local(Arc::new(workspace));
    tracing::info!(workspace = %env.workspace.root().display(), allow_agent, "serving MCP on stdio");
    mcp::serve(McpServer::new(env, agent)).await
}
