//! The engine interface: what runs a turn. The runtime owns records, events
//! and the turn state machine; an engine only reports what happens through
//! its `TurnContext`. The agent engine (providers, tools) implements this;
//! tests drive the runtime with scripted engines.

use super::{
    approvals::{ApprovalRequest, Approvals, Decision},
    turn_writer::ItemWriter,
};
use crate::error::ApiError;
use app::protocol::{ThreadRecord, TurnItemRecord, Usage};
use futures::future::BoxFuture;
use tokio::sync::{mpsc, watch};

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
    pub mode: String,
    pub allow_shell: bool,
    pub trust_mode: bool,
    pub auto_approve: bool,
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
    /// The thread's items when the turn started, oldest first (this turn's
    /// prompt included).
    pub history: Vec<TurnItemRecord>,
    /// Steering prompts, in the order they were accepted.
    pub steers: mpsc::Receiver<String>,
    /// Flips to true when an interrupt was requested.
    pub interrupt: watch::Receiver<bool>,
    /// Records items and their streamed text.
    pub items: ItemWriter,
    /// Asks the user before writes and commands.
    pub approvals: ApprovalGate,
}

/// The approval channel of one turn.
#[derive(Clone)]
pub struct ApprovalGate {
    pub(super) approvals: std::sync::Arc<Approvals>,
    pub(super) thread_id: String,
    pub(super) turn_id: String,
    /// auto_approve on the thread or turn, or yolo mode.
    pub(super) auto: bool,
}

impl ApprovalGate {
    /// Waits for the decision; a failure to record it counts as a denial.
    pub async fn ask(&self, request: ApprovalRequest) -> Decision {
        match self
            .approvals
            .ask(&self.thread_id, &self.turn_id, request, self.auto)
            .await
        {
            Ok(decision) => decision,
            Err(error) => {
                tracing::error!(%error, "recording an approval failed; denying");
                Decision::Deny
            }
        }
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
    ) -> Result<Route, ApiError>;

    /// Runs one turn to its end.
    fn run(&self, turn: TurnContext) -> BoxFuture<'static, Outcome>;
}

/// The engine of a build without model providers: every turn is refused up
/// front with what to configure, and nothing is written.
pub struct NoProvider;

impl Engine for NoProvider {
    fn check_ready(&self, _: &ThreadRecord, _: &TurnSettings) -> Result<Route, ApiError> {
        Err(ApiError::bad_request(
            "no model provider is configured: set DEEPSEEK_API_KEY or add a provider to config.toml",
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
