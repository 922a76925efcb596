//! The MCP client: connects MCP servers (`connect.rs`) and offers their
//! tools to the model as `ExtraTools`, named `mcp__<server>__<tool>` so
//! they cannot shadow the runtime's tools or each other. A tool runs unasked
//! only when the server marks it read-only (`readOnlyHint`); every other
//! call goes through an approval like a write.
//!
//! A server that fails to start is logged and left out; the others still
//! serve. Dropping `McpTools` closes every connection (and kills stdio
//! servers with their process groups).

pub mod connect;

pub use rmcp::model::Tool;

use crate::runtime::hosted_tools::ExtraTools;
use connect::{ServerSpec, Service};
use futures::future::BoxFuture;
use rmcp::model::{CallToolRequestParams, PaginatedRequestParams};
use serde_json::{json, Value};
use std::{sync::Arc, time::Duration};

/// How long one tool call may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(300);
/// Tools offered from all servers together (providers refuse requests
/// with more than 128 tools; the runtime's own come first).
const MAX_TOOLS: usize = 96;
/// Pages of `tools/list` read from one server.
const MAX_PAGES: usize = 10;
/// What the model reads of one result, at most.
const MAX_RESULT: usize = 64 * 1024;
/// OpenAI's limit on a function name.
const MAX_NAME: usize = 64;

/// Connected servers and the tools they offer.
#[derive(Default)]
pub struct McpTools {
    servers: Vec<Arc<Server>>,
    tools: Vec<Offered>,
    /// Names two tools shared: neither is offered.
    collided: std::collections::HashSet<String>,
}

/// A server connected and its tools listed. Dropping the last handle
/// closes the connection (and kills a stdio server's process group).
pub struct Server {
    name: String,
    service: Service,
    /// Kills a stdio server's whole process group when the connection goes.
    _group: Option<connect::GroupKill>,
    tools: Vec<Tool>,
}

impl Server {
    /// Starts or reaches the server and lists its tools, both within
    /// `timeout`: a server that hangs in either is never waited on longer.
    pub async fn start(spec: &ServerSpec, timeout: Duration) -> Result<Server, String> {
        let ready = async {
            let started = connect::connect(spec, timeout).await?;
            let tools = list_tools(&started.service).await?;
            Ok::<_, String>(Server {
                name: spec.name.clone(),
                service: started.service,
                _group: started.group,
                tools,
            })
        };
        tokio::time::timeout(timeout, ready)
            .await
            .unwrap_or_else(|_| {
                Err(format!(
                    "did not start and list its tools within {} s",
                    timeout.as_secs()
                ))
            })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The connection is gone: the process exited, or the endpoint closed.
    pub fn is_closed(&self) -> bool {
        self.service.is_closed()
    }
}

/// Told of a failed call: the error, and whether the server is gone.
pub type OnFailure = Arc<dyn Fn(&str, bool) + Send + Sync>;

/// How calls to one server's tools go.
#[derive(Clone)]
pub struct Policy {
    /// `Some`: the user's word on the whole server (trusted tools run
    /// unasked, others are asked for). `None`: a tool that declares itself
    /// read-only (`readOnlyHint`) runs unasked.
    pub trusted: Option<bool>,
    pub call_timeout: Duration,
    /// Told of a call that failed at the transport (`closed`: the server is
    /// gone) or went unanswered.
    pub on_failure: Option<OnFailure>,
    /// Text no error may repeat (the server's configured variable and header
    /// values, a URL's password and query): transport errors quote URLs.
    pub secrets: Arc<[String]>,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            trusted: None,
            call_timeout: CALL_TIMEOUT,
            on_failure: None,
            secrets: Arc::new([]),
        }
    }
}

/// One tool as the model sees it.
struct Offered {
    exposed: String,
    server: Arc<Server>,
    tool: Tool,
    policy: Policy,
}

/// A server that could not be used, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub server: String,
    pub error: String,
}

impl McpTools {
    /// Connects every server (side by side) and lists its tools.
    pub async fn connect(specs: &[ServerSpec]) -> (McpTools, Vec<Failure>) {
        let started = futures::future::join_all(
            specs
                .iter()
                .map(|spec| Server::start(spec, connect::CONNECT_TIMEOUT)),
        )
        .await;
        let mut all = McpTools::default();
        let mut failures = Vec::new();
        for (spec, result) in specs.iter().zip(started) {
            match result {
                Ok(server) => all.add(Arc::new(server), Policy::default()),
                Err(error) => {
                    tracing::warn!(server = %spec.name, %error, "an MCP server is not available");
                    failures.push(Failure {
                        server: spec.name.clone(),
                        error,
                    });
                }
            }
        }
        (all, failures)
    }

    /// The tools of servers already running, each under its policy.
    pub fn offer(servers: impl IntoIterator<Item = (Arc<Server>, Policy)>) -> McpTools {
        let mut all = McpTools::default();
        for (server, policy) in servers {
            all.add(server, policy);
        }
        all
    }

    fn add(&mut self, server: Arc<Server>, policy: Policy) {
        let name = server.name.clone();
        for tool in &server.tools {
            if self.tools.len() >= MAX_TOOLS {
                tracing::warn!(server = %name, "more than {MAX_TOOLS} MCP tools; the rest are left out");
                break;
            }
            let exposed = exposed_name(&name, &tool.name);
            if self.collided.contains(&exposed) {
                continue;
            }
            if let Some(at) = self.tools.iter().position(|t| t.exposed == exposed) {
                // Neither: a call must never reach a server it was not
                // meant for.
                let other = self.tools.remove(at);
                self.collided.insert(exposed);
                tracing::warn!(server = %name, tool = %tool.name, other = %other.server.name, "two MCP tools share a name after shortening; both left out");
                continue;
            }
            self.tools.push(Offered {
                exposed,
                server: server.clone(),
                tool: tool.clone(),
                policy: policy.clone(),
            });
        }
        self.servers.push(server);
    }

    /// The servers connected.
    pub fn servers(&self) -> Vec<String> {
        self.servers.iter().map(|s| s.name.clone()).collect()
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    fn find(&self, name: &str) -> Option<&Offered> {
        self.tools.iter().find(|t| t.exposed == name)
    }
}

/// The server says the tool changes nothing.
pub fn declares_read_only(tool: &Tool) -> bool {
    tool.annotations.as_ref().and_then(|a| a.read_only_hint) == Some(true)
}

impl ExtraTools for McpTools {
    fn specs(&self) -> Vec<Value> {
        self.tools
            .iter()
            .map(|offered| {
                let tool = &offered.tool;
                let description = format!(
                    "{} (tool {:?} of the MCP server {:?})",
                    tool.description.as_deref().unwrap_or_default(),
                    tool.name,
                    offered.server.name
                );
                json!({"type": "function", "function": {
                    "name": offered.exposed,
                    "description": description.trim_start(),
                    "parameters": Value::Object((*tool.input_schema).clone()),
                }})
            })
            .collect()
    }

    fn has(&self, name: &str) -> bool {
        self.find(name).is_some()
    }

    fn read_only(&self, name: &str) -> bool {
        self.find(name)
            .is_some_and(|offered| declares_read_only(&offered.tool))
    }

    fn asks(&self, name: &str) -> bool {
        self.find(name)
            .is_none_or(|offered| match offered.policy.trusted {
                Some(trusted) => !trusted,
                None => !declares_read_only(&offered.tool),
            })
    }

    fn call(&self, name: &str, arguments: Value) -> BoxFuture<'static, Result<String, String>> {
        let Some(offered) = self.find(name) else {
            let error = format!("unknown tool {name:?}");
            return Box::pin(async move { Err(error) });
        };
        let (server, tool) = (offered.server.clone(), offered.tool.name.clone());
        let policy = offered.policy.clone();
        Box::pin(async move {
            let Value::Object(arguments) = arguments else {
                return Err("arguments must be a JSON object".into());
            };
            let failed = |error: String, closed: bool| {
                let error = redact(&error, &policy.secrets);
                if let Some(tell) = &policy.on_failure {
                    tell(&error, closed);
                }
                error
            };
            let call = CallToolRequestParams::new(tool.clone()).with_arguments(arguments);
            let limit = policy.call_timeout;
            let result = tokio::time::timeout(limit, server.service.call_tool(call))
                .await
                .map_err(|_| {
                    let error = format!("{tool} did not answer within {} s", limit.as_secs());
                    failed(error, false)
                })?
                .map_err(|e| {
                    let closed =
                        server.is_closed() || matches!(e, rmcp::ServiceError::TransportClosed);
                    let error = match closed {
                        true => format!(
                            "the MCP server {:?} stopped during {tool}: {e}",
                            server.name
                        ),
                        false => format!("the MCP server {:?} failed: {e}", server.name),
                    };
                    failed(error, closed)
                })?;
            let text = result_text(&serde_json::to_value(&result).unwrap_or_default());
            if result.is_error == Some(true) {
                Err(text)
            } else {
                Ok(text)
            }
        })
    }
}

/// The server's tools, a bounded number of pages of them.
pub async fn list_tools(service: &Service) -> Result<Vec<Tool>, String> {
    let mut tools = Vec::new();
    let mut cursor = None;
    for _ in 0..MAX_PAGES {
        let params = PaginatedRequestParams::default().with_cursor(cursor);
        let page = service
            .list_tools(Some(params))
            .await
            .map_err(|e| format!("listing its tools failed: {e}"))?;
        tools.extend(page.tools);
        if tools.len() > MAX_TOOLS {
            break;
        }
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    Ok(tools)
}

/// `text` with every secret (three characters or more) replaced by `…`.
pub fn redact(text: &str, secrets: &[String]) -> String {
    let mut text = text.to_string();
    for secret in secrets.iter().filter(|s| s.len() >= 3) {
        if text.contains(secret.as_str()) {
            text = text.replace(secret.as_str(), "…");
        }
    }
    text
}

/// A result's content as text: text blocks as they are, structured
/// content as JSON, anything else named.
fn result_text(result: &Value) -> String {
    let mut parts: Vec<String> = Vec::new();
    for block in result["content"].as_array().into_iter().flatten() {
        match block["type"].as_str() {
            Some("text") => parts.push(block["text"].as_str().unwrap_or_default().to_string()),
            Some("resource") => match block["resource"]["text"].as_str() {
                Some(text) => parts.push(text.to_string()),
                None => parts.push(format!(
                    "[binary resource {}]",
                    block["resource"]["uri"].as_str().unwrap_or_default()
                )),
            },
            Some("resource_link") => parts.push(format!(
                "[resource {}]",
                block["uri"].as_str().unwrap_or_default()
            )),
            Some(other) => parts.push(format!("[{other} content omitted]")),
            None => {}
        }
    }
    if parts.is_empty() {
        if let Some(structured) = result.get("structuredContent").filter(|v| !v.is_null()) {
            parts.push(structured.to_string());
        }
    }
    let mut text = parts.join("\n");
    crate::text::clip(&mut text, MAX_RESULT, "\n… truncated");
    text
}

/// `mcp__<server>__<tool>`, reduced to the characters a function name may
/// hold and to 64 of them.
pub fn exposed_name(server: &str, tool: &str) -> String {
    let clean = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    let mut name = format!("mcp__{}__{}", clean(server), clean(tool));
    name.truncate(MAX_NAME);
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exposed_names_are_valid_function_names() {
        assert_eq!(exposed_name("fs", "read_file"), "mcp__fs__read_file");
        assert_eq!(exposed_name("my server", "a.b/c"), "mcp__my_server__a_b_c");
        assert_eq!(exposed_name("s", &"x".repeat(100)).len(), MAX_NAME);
    }

    #[test]
    fn errors_lose_their_secrets() {
        let secrets = vec!["s3cret".to_string(), "ab".to_string()];
        assert_eq!(
            redact("https://u:s3cret@h/ failed (ab)", &secrets),
            "https://u:…@h/ failed (ab)"
        );
    }

    #[test]
    fn results_read_as_text() {
        let result = json!({"content": [
            {"type": "text", "text": "one"},
            {"type": "image", "data": "…", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///a", "text": "two"}},
        ]});
        assert_eq!(result_text(&result), "one\n[image content omitted]\ntwo");
        let structured = json!({"content": [], "structuredContent": {"n": 1}});
        assert_eq!(result_text(&structured), r#"{"n":1}"#);
    }
}
