//! The engine interface: what runs a turn. The runtime owns records, events
//! and the turn state machine; an engine only reports what happens through
//! its `TurnContext`. The agent engine (providers, tools) implements this;
//! tests drive the runtime with scripted engines.

use super::{
    agent_runs::AgentGate,
    approvals::{ApprovalRequest, Approvals, Decision},
    client_tools::{CallEnd, ClientTools},
    hosted_tools::Hosted,
    snapshots::{Owner, Snapshots},
    turn_writer::ItemWriter,
    user_input::{self, UserInputs},
};
use crate::runtime::error::RuntimeError;
use futures::future::BoxFuture;
use protocol::SnapshotKind;
use protocol::{DynamicToolSpec, Mode, ThreadRecord, TurnItemRecord, Usage, UserInputRequest};
use std::{path::PathBuf, sync::Arc};
use tokio::sync::{mpsc, watch, OnceCell};

/// What a turn was started for.
#[derive(Clone, Debug, PartialEq)]
pub enum TurnInput {
    Prompt(String),
    Compact { reason: Option<String> },
}

/// The effective settings of one turn (thread settings plus per-turn overrides).
#[derive(Clone, Debug)]
pub struct TurnSettings {
    pub model: Option<String>,
    pub model_provider: Option<String>,
    pub mode: Mode,
    pub allow_shell: bool,
    pub trust_mode: bool,
    pub auto_approve: bool,
    /// True when the turn did not override auto_approve: it then follows
    /// the thread's setting as it changes.
    pub auto_approve_from_thread: bool,
    /// Client-executed tools: the thread's plus the turn's.
    pub dynamic_tools: Vec<DynamicToolSpec>,
}

/// How a turn ended, as the engine reports it.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Completed { usage: Usage },
    Failed { error: String, usage: Usage },
    Interrupted { usage: Usage },
}

/// Everything an engine gets for one turn.
pub struct TurnContext {
    pub thread: ThreadRecord,
    pub turn_id: String,
    pub input: TurnInput,
    pub settings: TurnSettings,
    /// The user's and the project's instructions (`instructions.rs`), for
    /// the system prompt after the thread's own; empty when there are none.
    pub instructions: String,
    /// The enabled skills the instructions name, for `load_skill`.
    pub skills: Vec<super::skills::Found>,
    /// The thread's items when the turn started, oldest first (this turn's
    /// prompt included).
    pub history: Vec<TurnItemRecord>,
    /// Steering prompts, in the order they were accepted.
    pub steers: mpsc::Receiver<String>,
    /// Flips to true when an interrupt was requested.
    pub interrupt: watch::Receiver<bool>,
    /// Records items and their streamed text.
    pub items: ItemWriter,
    /// What the turn asks of its client: approvals, answers, tool results.
    pub client: ClientGate,
    /// Records the workspace before the turn first changes it.
    pub checkpoint: Checkpoint,
    /// Tools a client runs for this turn (an editor's, an MCP server's).
    pub hosted: Hosted,
    /// Sub-agents this turn may spawn, wait on and read.
    pub agents: AgentGate,
    /// The MCP servers of `config.toml`: `turn_tools` starts what the turn
    /// needs and gives their tools.
    pub mcp: Arc<super::mcp::McpServersHost>,
}

/// The workspace snapshots of one turn: before its first write or command
/// (an engine calls `before_change`, once or many times) and, if that was
/// taken, after the turn (the runtime does).
#[derive(Clone)]
pub struct Checkpoint {
    pub(super) snapshots: Arc<Snapshots>,
    pub(super) workspace: Option<PathBuf>,
    pub(super) thread_id: String,
    pub(super) turn_id: String,
    /// Whether the pre-turn snapshot was recorded.
    pub(super) taken: Arc<OnceCell<bool>>,
}

impl Checkpoint {
    /// Records the workspace unless this turn already did. A failure is
    /// logged and does not stop the change (the turn then has no undo).
    pub async fn before_change(&self) {
        self.taken
            .get_or_init(|| self.record(SnapshotKind::PreTurn))
            .await;
    }

    /// After the turn: the state it left, when it recorded the state before.
    pub(super) async fn after_turn(&self) {
        if self.taken.get() == Some(&true) {
            self.record(SnapshotKind::PostTurn).await;
        }
    }

    async fn record(&self, kind: SnapshotKind) -> bool {
        let Some(workspace) = &self.workspace else {
            return false;
        };
        let owner = Owner {
            thread_id: &self.thread_id,
            turn_id: Some(&self.turn_id),
        };
        match self.snapshots.record(workspace, owner, kind).await {
            Ok(_) => true,
            Err(error) => {
                let detail = error.internal_detail().unwrap_or_else(|| error.to_string());
                tracing::error!(error = %detail, kind = kind.as_str(), "recording a workspace snapshot failed");
                false
            }
        }
    }
}

/// The client-facing requests of one turn.
#[derive(Clone)]
pub struct ClientGate {
    pub(super) approvals: Arc<Approvals>,
    pub(super) user_inputs: Arc<UserInputs>,
    pub(super) tools: Arc<ClientTools>,
    pub(super) thread_id: String,
    pub(super) turn_id: String,
    /// Fixed by yolo mode or a per-turn override; `None` follows the
    /// thread's current setting, so "remember" applies to the running turn.
    pub(super) auto: Option<bool>,
}

impl ClientGate {
    /// Whether this turn's approvals are granted without asking, now.
    pub async fn auto_approves(&self) -> bool {
        match self.auto {
            Some(fixed) => fixed,
            None => self.approvals.thread_auto_approves(&self.thread_id).await,
        }
    }

    /// Whether someone can answer this turn's approvals (auto-approval
    /// aside): false where every approval is denied at once.
    pub fn can_be_answered(&self) -> bool {
        self.approvals.can_be_answered()
    }

    /// Waits for an approval; a failure to record it counts as a denial.
    pub async fn approve(&self, request: ApprovalRequest) -> Decision {
        let auto = self.auto_approves().await;
        let asked = self
            .approvals
            .ask(&self.thread_id, &self.turn_id, request, auto);
        asked.await.unwrap_or_else(|error| {
            tracing::error!(%error, "recording an approval failed; denying");
            Decision::Deny
        })
    }

    /// Asks the user; a failure to record the question counts as canceled.
    pub async fn user_input(&self, request: UserInputRequest) -> user_input::Reply {
        let asked = self
            .user_inputs
            .ask(&self.thread_id, &self.turn_id, request);
        asked.await.unwrap_or_else(|error| {
            tracing::error!(%error, "recording a user-input request failed");
            user_input::Reply::Canceled
        })
    }

    /// Runs a client-executed tool; a failure to record it counts as canceled.
    pub async fn client_tool(
        &self,
        spec: &DynamicToolSpec,
        arguments: serde_json::Value,
    ) -> CallEnd {
        let called = self
            .tools
            .call(&self.thread_id, &self.turn_id, spec, arguments);
        called.await.unwrap_or_else(|error| {
            tracing::error!(%error, "recording a client tool call failed");
            CallEnd::Canceled
        })
    }
}

/// Where a turn's model calls go, recorded on the turn for usage and cost.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Route {
    pub provider: Option<String>,
    pub model: Option<String>,
}

pub trait Engine: Send + Sync + 'static {
    /// Refuses a turn before anything is written (for example: no provider
    /// is configured), saying what to do; otherwise tells where it will go.
    fn check_ready(
        &self,
        thread: &ThreadRecord,
        settings: &TurnSettings,
    ) -> Result<Route, RuntimeError>;

    /// Runs one turn to its end.
    fn run(&self, turn: TurnContext) -> BoxFuture<'static, Outcome>;

    /// The providers and models a client may pick from.
    fn providers(&self) -> Vec<protocol::ProviderModels> {
        Vec::new()
    }
}

/// The engine of a build without model providers: every turn is refused up
/// front with what to configure, and nothing is written.
pub struct NoProvider;

impl Engine for NoProvider {
    fn check_ready(&self, _: &ThreadRecord, _: &TurnSettings) -> Result<Route, RuntimeError> {
        Err(RuntimeError::Conflict(
            "no model provider is configured: set DEEPSEEK_API_KEY or add a provider to config.toml"
                .into(),
        ))
    }

    fn run(&self, _: TurnContext) -> BoxFuture<'static, Outcome> {
        Box::pin(async {
            Outcome::Failed {
                error: "no model provider is configured".into(),
                usage: Usage::default(),
            }
        })
    }
}
