//! `codewhale acp` / `serve --acp`: the Agent Client Protocol over stdio
//! (the protocol is `crate::acp`). Logs go to stderr; stdout is protocol.

use super::{current_dir, runtime_options};
use crate::{
    config::Config,
    error::RunError,
    home,
    runtime::{approvals::DEFAULT_TIMEOUT, Runtime},
};
use std::{path::PathBuf, sync::Arc};

pub async fn run(workspace: Option<PathBuf>) -> Result<(), RunError> {
    let home = home::resolve()?;
    let config = Config::load(&home)?;
    let workspace = match workspace {
        Some(dir) => dir,
        None => current_dir()?,
    };
    let options = runtime_options(home, &config, workspace.clone(), DEFAULT_TIMEOUT);
    let runtime = Arc::new(Runtime::open(options).await?);
    let served = crate::acp::serve_stdio(runtime.clone(), workspace).await;
    runtime.close().await;
    served.map_err(|error| RunError::Config(format!("acp: {error}")))
}
