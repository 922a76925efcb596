//! Server functions of the MCP servers page. The runtime holds every rule
//! (what a server entry may hold, when one starts, what a record may show);
//! these only carry the calls.

use crate::error::ServiceError;
use crate::protocol::{McpServerRecord, McpToolRecord};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[cfg(feature = "ssr")]
use crate::service::service as runtime;

/// What a row's buttons do to a server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum McpCommand {
    Enable,
    Disable,
    Trust,
    Distrust,
    Reload,
    Delete,
}

#[server(prefix = "/api", endpoint = "mcp_servers", output = crate::api::Json)]
pub async fn load_mcp_servers() -> Result<Vec<McpServerRecord>, ServiceError> {
    runtime()?.mcp_servers().await
}

/// The server's tools (it is started if it is not running).
#[server(prefix = "/api", endpoint = "mcp_server_tools", output = crate::api::Json)]
pub async fn mcp_server_tools(name: String) -> Result<Vec<McpToolRecord>, ServiceError> {
    runtime()?.mcp_tools(name).await
}

#[server(prefix = "/api", endpoint = "mcp_server_command", output = crate::api::Json)]
pub async fn mcp_server_command(name: String, command: McpCommand) -> Result<(), ServiceError> {
    runtime()?.mcp_command(name, command).await
}

/// The form's fields: `target` is a command line's program or a URL;
/// `args`, and `values` (`NAME=value`: variables for a command, headers for
/// a URL), one per line.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct McpDraft {
    pub name: String,
    pub target: String,
    pub args: String,
    pub values: String,
    pub trusted: bool,
}

/// Adds a server; answers its name.
#[server(prefix = "/api", endpoint = "add_mcp_server", output = crate::api::Json)]
pub async fn add_mcp_server(draft: McpDraft) -> Result<String, ServiceError> {
    let target = draft.target.trim().to_string();
    let is_url = target.starts_with("http://") || target.starts_with("https://");
    let lines = |text: &str| -> Vec<String> {
        text.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect()
    };
    let mut values = std::collections::BTreeMap::new();
    for (n, line) in lines(&draft.values).into_iter().enumerate() {
        // The line itself is not repeated: it may hold a secret.
        let Some((key, value)) = line.split_once('=') else {
            return Err(ServiceError::new(
                400,
                format!("line {} of the values is not NAME=value", n + 1),
            ));
        };
        values.insert(key.trim().to_string(), value.trim().to_string());
    }
    let (command, url) = if is_url {
        (None, Some(target))
    } else {
        (Some(target), None)
    };
    let request = crate::protocol::CreateMcpServer {
        name: draft.name.trim().to_string(),
        args: lines(&draft.args),
        env: if is_url {
            Default::default()
        } else {
            values.clone()
        },
        headers: if is_url { values } else { Default::default() },
        command,
        url,
        trusted: draft.trusted,
        enabled: true,
        ..Default::default()
    };
    runtime()?
        .add_mcp_server(request)
        .await
        .map(|server| server.name)
}
