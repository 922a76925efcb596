//! The MCP servers an ACP client passes in session/new, load or resume:
//! read from the spec's shapes (stdio; `http`, which `initialize`
//! advertises; `sse` is refused, not advertised), connected in the
//! background as soon as the session exists, and offered to the model in
//! that session's prompts (a prompt waits for the connections to finish).

use crate::mcp_client::{
    connect::{ServerSpec, Transport},
    McpTools,
};
use futures::{
    future::{BoxFuture, Shared},
    FutureExt,
};
use serde_json::Value;
use std::{path::Path, sync::Arc};

/// The session's servers, connecting or connected (`None`: none usable).
pub(super) type Connecting = Shared<BoxFuture<'static, Option<Arc<McpTools>>>>;

/// Starts connecting `servers` (the request's `mcpServers`); `None` when
/// there are none.
pub(super) fn start(servers: &impl serde::Serialize, cwd: &Path) -> Option<Connecting> {
    let specs = specs(&serde_json::to_value(servers).unwrap_or_default(), cwd);
    if specs.is_empty() {
        return None;
    }
    let connecting = tokio::spawn(async move {
        let (tools, failures) = McpTools::connect(&specs).await;
        for failure in failures {
            tracing::warn!(server = %failure.server, error = %failure.error, "acp: an MCP server passed by the client is not available");
        }
        tracing::info!(servers = ?tools.servers(), "acp: MCP servers connected");
        (!tools.is_empty()).then(|| Arc::new(tools))
    });
    Some(
        async move { connecting.await.ok().flatten() }
            .boxed()
            .shared(),
    )
}

/// The usable specs in the list; others are logged and skipped.
fn specs(servers: &Value, cwd: &Path) -> Vec<ServerSpec> {
    let pairs = |list: &Value| -> Vec<(String, String)> {
        list.as_array()
            .into_iter()
            .flatten()
            .filter_map(|pair| {
                Some((
                    pair["name"].as_str()?.to_string(),
                    pair["value"].as_str()?.to_string(),
                ))
            })
            .collect()
    };
    let mut specs = Vec::new();
    for server in servers.as_array().into_iter().flatten() {
        let name = server["name"].as_str().unwrap_or("mcp").to_string();
        let transport = match (server["type"].as_str(), server["command"].as_str()) {
            (None | Some("stdio"), Some(command)) => Transport::Stdio {
                command: command.to_string(),
                args: server["args"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|a| a.as_str().map(str::to_string))
                    .collect(),
                env: pairs(&server["env"]),
                cwd: Some(cwd.to_path_buf()),
            },
            (Some("http"), _) if server["url"].is_string() => Transport::Http {
                url: server["url"].as_str().unwrap_or_default().to_string(),
                headers: pairs(&server["headers"]),
            },
            (kind, _) => {
                tracing::warn!(server = %name, kind = kind.unwrap_or("stdio"), "acp: an MCP server of this kind is not supported");
                continue;
            }
        };
        specs.push(ServerSpec { name, transport });
    }
    specs
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_spec_shapes_are_read() {
        let servers = json!([
            {"name": "fs", "command": "npx", "args": ["-y", "server"], "env": [{"name": "A", "value": "1"}]},
            {"type": "http", "name": "web", "url": "http://127.0.0.1:9/mcp", "headers": [{"name": "X-Key", "value": "k"}]},
            {"type": "sse", "name": "old", "url": "http://127.0.0.1:9/sse", "headers": []},
        ]);
        let specs = specs(&servers, Path::new("/w"));
        assert_eq!(specs.len(), 2);
        assert_eq!(
            specs[0].transport,
            Transport::Stdio {
                command: "npx".into(),
                args: vec!["-y".into(), "server".into()],
                env: vec![("A".into(), "1".into())],
                cwd: Some("/w".into()),
            }
        );
        assert_eq!(
            specs[1].transport,
            Transport::Http {
                url: "http://127.0.0.1:9/mcp".into(),
                headers: vec![("X-Key".into(), "k".into())],
            }
        );
    }
}
