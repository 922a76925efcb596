//! `codewhale app-server --stdio`: the JSON-RPC 2.0 control transport on
//! stdin/stdout (`jsonrpc/`), with the runtime in this process.

use super::{current_dir, runtime_options};
use crate::{
    config::{Config, CONFIG_FILE},
    error::RunError,
    home, jsonrpc,
    runtime::{approvals::DEFAULT_TIMEOUT, Runtime},
};
use serde_json::json;
use std::{path::PathBuf, sync::Arc};

pub async fn run(workspace: Option<PathBuf>) -> Result<(), RunError> {
    let home = home::resolve()?;
    let config = Config::load(&home)?;
    let workspace = match workspace {
        Some(dir) => dir,
        None => current_dir()?,
    };
    let config_path = home.join(CONFIG_FILE);
    // `app/config/get`: which settings are in effect, never a key or a value
    // that could hold one (base URLs may carry credentials).
    let config_view = json!({
        "home": home,
        "config_path": config_path,
        "config_present": config_path.is_file(),
        "default_workspace": workspace,
        "default_provider": config.default_provider,
        "configured_providers": config.providers.keys().collect::<Vec<_>>(),
        "approval_wait_seconds": DEFAULT_TIMEOUT.as_secs(),
    });
    let options = runtime_options(home, &config, workspace, DEFAULT_TIMEOUT);
    let runtime = Arc::new(Runtime::open(options).await?);
    tracing::info!("serving JSON-RPC 2.0 on stdin/stdout");
    jsonrpc::serve(
        runtime.clone(),
        config_view,
        tokio::io::stdin(),
        tokio::io::stdout(),
    )
    .await;
    runtime.close().await;
    Ok(())
}
