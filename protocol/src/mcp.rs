//! MCP servers codewhale connects to as a client (`/v1/apps/mcp`): kept in
//! `config.toml` under `[mcp.servers.NAME]`, started on first use, their
//! tools offered to the model as `mcp__<server>__<tool>`.
//!
//! Environment values and header values are write-only: a record names
//! them, never shows them.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How codewhale reaches the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum McpTransport {
    /// A child process speaking MCP on its stdin and stdout.
    Stdio,
    /// A streamable-HTTP endpoint.
    Http,
}

/// Where a server stands in this process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum McpServerStatus {
    /// Switched off: never started, its tools not offered.
    Disabled,
    /// Not started yet: it starts when a turn or a tools listing needs it.
    Idle,
    Starting,
    Ready,
    /// It did not start, or it stopped (see `last_error`); the next use
    /// starts it again.
    Failed,
}

/// One configured server as `/v1/apps/mcp/servers` shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct McpServerRecord {
    pub name: String,
    pub transport: McpTransport,
    /// A stdio server's program and arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    /// A stdio server's working directory (default: codewhale's home, never
    /// a workspace).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// An HTTP server's endpoint, without any user or password part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The names of the variables set for a stdio server (values are never
    /// shown).
    #[serde(default)]
    pub env: Vec<String>,
    /// The names of the headers sent to an HTTP server (values are never
    /// shown).
    #[serde(default)]
    pub headers: Vec<String>,
    /// Its tools run without asking first.
    pub trusted: bool,
    pub enabled: bool,
    pub startup_timeout_seconds: u64,
    pub tool_timeout_seconds: u64,
    pub status: McpServerStatus,
    /// Why it last failed: did not start, stopped, or a call went unanswered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error_at: Option<String>,
    /// When the running connection started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    /// Tools it offers, when it is ready.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_count: Option<u64>,
    /// Times this process started it.
    pub starts: u64,
}

/// `GET /v1/apps/mcp/servers`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct McpServers {
    pub servers: Vec<McpServerRecord>,
}

/// `POST /v1/apps/mcp/servers`: a stdio server (`command`) or an HTTP one
/// (`url`), never both.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CreateMcpServer {
    /// Letters, digits, `_` and `-`; 32 at most.
    pub name: String,
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    /// Variables for a stdio server, beside the scrubbed environment every
    /// child of codewhale gets.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    #[serde(default)]
    pub trusted: bool,
    #[serde(default = "yes")]
    pub enabled: bool,
    #[serde(default, deserialize_with = "crate::devices::whole_number")]
    pub startup_timeout_seconds: Option<u64>,
    #[serde(default, deserialize_with = "crate::devices::whole_number")]
    pub tool_timeout_seconds: Option<u64>,
}

fn yes() -> bool {
    true
}

/// `PATCH /v1/apps/mcp/servers/{name}`: what is given replaces what was
/// there (`env` and `headers` whole). The transport stays: a stdio server
/// takes `command`, `args`, `env`, `cwd`; an HTTP one `url`, `headers`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PatchMcpServer {
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub args: Option<Vec<String>>,
    #[serde(default)]
    pub env: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub headers: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub trusted: Option<bool>,
    #[serde(default)]
    pub enabled: Option<bool>,
    #[serde(default, deserialize_with = "crate::devices::whole_number")]
    pub startup_timeout_seconds: Option<u64>,
    #[serde(default, deserialize_with = "crate::devices::whole_number")]
    pub tool_timeout_seconds: Option<u64>,
}

/// `GET /v1/apps/mcp/tools` query.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::IntoParams),
    into_params(parameter_in = Query)
)]
#[serde(deny_unknown_fields)]
pub struct ListMcpTools {
    /// Only this server's tools.
    #[serde(default)]
    pub server: Option<String>,
}

/// One tool of a ready server.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct McpToolRecord {
    pub server: String,
    /// The tool's own name.
    pub name: String,
    /// The name the model calls it by: `mcp__<server>__<tool>`.
    pub exposed_name: String,
    #[serde(default)]
    pub description: String,
    /// Its arguments' JSON Schema.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub input_schema: serde_json::Value,
    /// The server says the tool changes nothing (`readOnlyHint`).
    pub read_only: bool,
    /// A call waits for the user's approval (the server is not trusted).
    pub needs_approval: bool,
}

/// `GET /v1/apps/mcp/tools`: the tools of the servers ready within a few
/// seconds, and where every listed server stands (one still starting is
/// `starting`: ask again).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct McpTools {
    pub tools: Vec<McpToolRecord>,
    pub servers: Vec<McpServerRecord>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_are_whole_numbers_however_written() {
        let create: CreateMcpServer = serde_json::from_value(serde_json::json!({
            "name": "fs", "command": "npx", "startup_timeout_seconds": 5.0
        }))
        .unwrap();
        assert_eq!(create.startup_timeout_seconds, Some(5));
        assert!(create.enabled, "a new server is enabled unless said");
        let bad = serde_json::from_value::<CreateMcpServer>(serde_json::json!({
            "name": "fs", "command": "npx", "tool_timeout_seconds": 1.5
        }));
        assert!(bad.is_err());
    }
}
