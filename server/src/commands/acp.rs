//! `codewhale acp` / `serve --acp`: the Agent Client Protocol over stdio.

use crate::error::RunError;

pub async fn run(workspace: Option<std::path::PathBuf>) -> Result<(), RunError> {
    let _ = workspace;
    Err(RunError::Config(
        "this transport is being built (issue 15)".into(),
    ))
}
