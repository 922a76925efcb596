//! The MCP server: rmcp's `ServerHandler` over this workspace's tools.
//! A refusal the caller should read (a path outside the workspace, a file
//! that is not there, a failed turn) is a tool result with `isError`;
//! a call that does not fit the tool's schema, or names a tool this
//! server does not offer, is "invalid params".

use super::{agent_run, tools};
use crate::{agent::tools::ToolEnv, error::RunError, runtime::Runtime};
use rmcp::{
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
        ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    },
    service::RequestContext,
    ErrorData as McpError, RoleServer, ServerHandler, ServiceExt,
};
use serde_json::Value;
use std::sync::Arc;

pub struct McpServer {
    env: ToolEnv,
    tools: Vec<Tool>,
    /// `Some` only with `--allow-agent`: what `codewhale_run` runs on.
    agent: Option<Arc<Runtime>>,
}

impl McpServer {
    pub fn new(env: ToolEnv, agent: Option<Arc<Runtime>>) -> Self {
        let mut tools = tools::list();
        if agent.is_some() {
            tools.push(agent_run::tool());
        }
        Self { env, tools, agent }
    }
}

/// Serves `server` on stdin/stdout until the client closes the stream.
pub async fn serve(server: McpServer) -> Result<(), RunError> {
    let agent = server.agent.clone();
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| RunError::Config(format!("the MCP session did not start: {e}")))?;
    let outcome = running.waiting().await;
    if let Some(runtime) = agent {
        // A `codewhale_run` turn still running would stay in progress in a
        // store other processes share.
        runtime.interrupt_all().await;
        runtime.close().await;
    }
    outcome
        .map(|reason| tracing::info!(?reason, "MCP session ended"))
        .map_err(|e| RunError::Config(format!("the MCP session failed: {e}")))
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let instructions = format!(
            "Read-only tools over the workspace {}: paths are relative to it, and nothing outside it is reachable.",
            self.env.workspace.root().display()
        );
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("codewhale", env!("CARGO_PKG_VERSION")))
            .with_instructions(instructions)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.as_ref();
        let Some(tool) = self.tools.iter().find(|t| t.name == name) else {
            let message = if name == agent_run::NAME {
                format!("{name} is not offered: the server was started without --allow-agent")
            } else {
                format!("unknown tool {name:?}")
            };
            return Err(McpError::invalid_params(message, None));
        };
        let arguments = request.arguments.unwrap_or_default();
        tools::check_arguments(&tool.input_schema, &arguments)
            .map_err(|e| McpError::invalid_params(format!("{name}: {e}"), None))?;
        if name == agent_run::NAME {
            let Some(runtime) = &self.agent else {
                return Err(McpError::invalid_params(
                    "codewhale_run is not offered",
                    None,
                ));
            };
            let text = |key: &str| arguments.get(key).and_then(Value::as_str);
            let result = agent_run::run(
                runtime,
                self.env.workspace.root(),
                text("prompt").unwrap_or_default(),
                text("thread_id"),
                context.ct.cancelled_owned(),
            )
            .await;
            return Ok(result.into());
        }
        let result = match tools::call(&self.env, name, &arguments).await {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(error) => CallToolResult::error(vec![ContentBlock::text(error.0)]),
        };
        Ok(result.into())
    }
}
