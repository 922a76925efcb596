//! `codewhale serve --mcp`: the workspace tools as an MCP stdio server.

use crate::error::RunError;

pub async fn run(workspace: Option<std::path::PathBuf>, allow_agent: bool) -> Result<(), RunError> {
    let _ = (workspace, allow_agent);
    Err(RunError::Config(
        "this transport is being built (issue 15)".into(),
    ))
}
