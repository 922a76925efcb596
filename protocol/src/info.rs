use serde::{Deserialize, Serialize};

pub const SERVICE_NAME: &str = "codewhale-runtime-api";
pub const RUNTIME_API_VERSION: &str = "1.0";

/// `GET /health`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Health {
    pub status: String,
    pub service: String,
    pub mode: String,
}

impl Health {
    pub fn ok() -> Self {
        Self {
            status: "ok".into(),
            service: SERVICE_NAME.into(),
            mode: "local".into(),
        }
    }
}

/// `GET /v1/runtime/info`: public, secret-free facts about this process.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RuntimeInfo {
    pub service: String,
    pub runtime_api_version: String,
    pub codewhale_version: String,
    /// Same as `codewhale_version`; kept for clients of the reference API.
    pub version: String,
    pub bind_host: String,
    pub port: u16,
    pub auth_required: bool,
    pub transports: Vec<String>,
    pub capabilities: Capabilities,
}

/// What this build can actually do. A flag turns true in the commit that
/// makes the feature work, never before.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Capabilities {
    pub web_client: bool,
    pub web_bootstrap: bool,
    pub threads: bool,
    pub turns: bool,
    pub turn_steer: bool,
    pub turn_interrupt: bool,
    pub event_replay: bool,
    pub approvals: bool,
    pub user_input: bool,
    pub external_tools: bool,
    pub usage: bool,
    pub mobile: bool,
    pub environments: bool,
    pub worker_runtime: bool,
    /// `/v1/tasks`: turns queued to run with no client attached.
    #[serde(default)]
    pub tasks: bool,
    /// `/v1/automations`: prompts run on a schedule, each run a task.
    #[serde(default)]
    pub automations: bool,
    /// `/v1/fleet`: workers side by side in worktrees, with an event stream.
    #[serde(default)]
    pub fleet: bool,
    /// `spawn_agent` for the model, and `/v1/agent-runs` receipts.
    #[serde(default)]
    pub agent_runs: bool,
    /// `/v1/skills` and `load_skill` for the model; project instructions
    /// (`AGENTS.md`, `CODEWHALE.md`) join every turn's system prompt.
    #[serde(default)]
    pub skills: bool,
    /// `/v1/apps/mcp`: MCP servers from `config.toml` whose tools the model
    /// may call (`mcp__<server>__<tool>`).
    #[serde(default)]
    pub mcp_servers: bool,
    /// `/v1/sessions`: conversations saved as files, resumable as threads.
    #[serde(default)]
    pub sessions: bool,
    /// `/v1/diagnostics/config`: a value-free report of the configuration.
    #[serde(default)]
    pub diagnostics: bool,
}

impl Capabilities {
    /// The capabilities of this build.
    pub fn current() -> Self {
        Self {
            web_client: true,
            web_bootstrap: true,
            threads: true,
            turns: true,
            turn_steer: true,
            turn_interrupt: true,
            event_replay: true,
            approvals: true,
            usage: true,
            user_input: true,
            external_tools: true,
            tasks: true,
            automations: true,
            fleet: true,
            agent_runs: true,
            skills: true,
            mcp_servers: true,
            sessions: true,
            diagnostics: true,
            ..Self::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn health_wire_shape() {
        assert_eq!(
            serde_json::to_value(Health::ok()).unwrap(),
            serde_json::json!({"status": "ok", "service": "codewhale-runtime-api", "mode": "local"})
        );
    }

    #[test]
    fn only_what_exists_is_claimed() {
        let current = Capabilities::current();
        assert!(current.web_client && current.web_bootstrap);
        assert!(current.threads && current.turns && current.event_replay);
        assert!(current.approvals && current.usage);
        assert!(current.user_input && current.external_tools && current.tasks);
        assert!(current.automations && current.fleet && current.agent_runs);
        assert!(current.skills && current.mcp_servers && current.sessions);
        assert!(current.diagnostics);
        // Not built yet: the phone page, environments, workers.
        assert!(!current.mobile && !current.environments && !current.worker_runtime);
    }
}
