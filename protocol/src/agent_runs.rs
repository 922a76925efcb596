//! Sub-agent runs: a bounded task a model delegated with `spawn_agent` to
//! a child thread, and the receipt `/v1/agent-runs` shows for it (what the
//! child was asked, what it did, what it changed, what it checked, what it
//! cost), read-only.

use crate::{DiffStat, ItemKind, ItemStatus, Mode, Usage};
use serde::{Deserialize, Serialize};

/// The `actor_kind` of every run this runtime records.
pub const SUB_AGENT_ACTOR: &str = "sub_agent";

/// Where a sub-agent works.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum AgentIsolation {
    /// In the parent's workspace itself.
    #[default]
    Shared,
    /// In its own git worktree and branch, made from the workspace's HEAD.
    Worktree,
}

impl AgentIsolation {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Shared => "shared",
            Self::Worktree => "worktree",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [Self::Shared, Self::Worktree]
            .into_iter()
            .find(|s| s.as_str() == text)
    }
}

/// `running` until the child's turn ends, then how it ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum AgentRunStatus {
    Running,
    Completed,
    Failed,
    Interrupted,
}

impl AgentRunStatus {
    pub fn is_terminal(self) -> bool {
        self != Self::Running
    }
}

/// What the parent asked for, as it was asked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AgentRunSpec {
    pub run_id: String,
    pub prompt: String,
    pub mode: Mode,
    pub isolation: AgentIsolation,
    /// Whether the parent waited for the result in the same tool call.
    pub wait: bool,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub model: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub model_provider: Option<String>,
    /// Where the child works (the worktree's, with worktree isolation).
    pub workspace: String,
    pub parent_thread_id: String,
    pub parent_turn_id: String,
    /// The parent's `spawn_agent` item.
    pub parent_item_id: String,
    /// 1 for a sub-agent of a top-level thread, 2 for one of its own, …
    pub depth: u32,
}

/// One step of the child's turn (an item), oldest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AgentRunEvent {
    pub item_id: String,
    pub kind: ItemKind,
    pub status: ItemStatus,
    pub summary: String,
    pub at: String,
}

/// Something the run left behind: a file it changed, or (worktree
/// isolation) the branch holding its work.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AgentArtifact {
    FileChange {
        path: String,
        item_id: String,
    },
    Branch {
        branch: String,
        /// Where the run's worktree is; null once it was removed
        /// (`POST /v1/agent-runs/{run_id}/cleanup`).
        #[cfg_attr(feature = "openapi", schema(required = true))]
        worktree: Option<String>,
        #[cfg_attr(feature = "openapi", schema(required = true))]
        commit: Option<String>,
        diff_stat: DiffStat,
    },
}

/// A command the child ran, as evidence of what it checked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct VerificationCommand {
    pub item_id: String,
    pub command: String,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub exit_code: Option<i64>,
    pub ok: bool,
}

/// The commands the child ran and how many succeeded.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AgentVerification {
    pub commands: Vec<VerificationCommand>,
    pub passed: u32,
    pub failed: u32,
}

/// How to go on with the child: its thread takes turns like any other.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AgentFollowUp {
    pub thread_id: String,
    pub hint: String,
}

/// Turns somebody else started on the child's thread after the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AgentTakeover {
    pub turn_ids: Vec<String>,
}

/// `GET /v1/agent-runs/{run_id}`: a sub-agent run's receipt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AgentRun {
    pub run_id: String,
    /// The child's thread: the worker that did the run (also accepted as
    /// `{run_id}`).
    pub worker_id: String,
    /// Always `sub_agent`.
    pub actor_kind: String,
    pub status: AgentRunStatus,
    pub spec: AgentRunSpec,
    pub thread_id: String,
    pub turn_id: String,
    /// The child's final message (clipped).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub answer: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub error: Option<String>,
    pub created_at: String,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub ended_at: Option<String>,
    /// The child turn's steps, at most the last 50.
    pub events: Vec<AgentRunEvent>,
    /// Steps left out of `events`.
    pub events_omitted: u32,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub follow_up: Option<AgentFollowUp>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub takeover: Option<AgentTakeover>,
    pub artifacts: Vec<AgentArtifact>,
    pub usage: Usage,
    pub verification: AgentVerification,
}

/// `GET /v1/agent-runs`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AgentRuns {
    pub runs: Vec<AgentRun>,
}

/// `GET /v1/agent-runs` query.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::IntoParams),
    into_params(parameter_in = Query)
)]
#[serde(deny_unknown_fields)]
pub struct ListAgentRuns {
    /// Only the runs this thread spawned.
    #[serde(default)]
    pub parent_thread_id: Option<String>,
    /// At most this many, newest first (default 50, at most 200).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// `agent.spawned` and `agent.completed` on the parent's stream: the
/// child's lifecycle (the receipt has the rest).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AgentRunPayload {
    pub run_id: String,
    /// The child's thread and turn.
    pub thread_id: String,
    pub turn_id: String,
    pub status: AgentRunStatus,
    pub depth: u32,
    pub prompt: String,
    /// `agent.completed`: the child's final message (clipped).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Present (true) when a restart found the run ended and reported it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovered: Option<bool>,
}
