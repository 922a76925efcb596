//! The turn state machine: start (one active turn per thread), steer,
//! interrupt, compaction turns, completion, and recovery after a restart.
//!
//! This file holds `TurnManager` itself (construction, accessors, the
//! thread snapshot) and the active-turn map it claims and releases. The
//! rest, each a separate `impl TurnManager`: `start` (starting a turn or a
//! compaction, the first records), `control` (steer, interrupt), `run`
//! (the engine task and the terminal write), `recovery` (turns a previous
//! process left unfinished).

mod control;
mod recovery;
mod run;
mod start;

pub use start::Opening;

use super::{
    agent_runs::SubAgents,
    approvals::{Approvals, DEFAULT_TIMEOUT},
    client_tools::ClientTools,
    engine::Engine,
    snapshots::Snapshots,
    threads,
    user_input::UserInputs,
};
use crate::{runtime::error::RuntimeError, store::Store};
use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};
use tokio::sync::{mpsc, watch};

/// The thread's active-turn slot, held until dropped.
pub(crate) struct Hold {
    manager: Arc<TurnManager>,
    thread_id: String,
    id: String,
}

impl Drop for Hold {
    fn drop(&mut self) {
        self.manager.release(&self.thread_id, &self.id);
    }
}

/// After an interrupt request, how long an engine may take to stop before
/// the runtime ends the turn itself.
pub const INTERRUPT_GRACE: Duration = Duration::from_secs(10);
pub const RESTART_ERROR: &str = "Interrupted by process restart";

struct ActiveTurn {
    turn_id: String,
    steer: mpsc::Sender<String>,
    interrupt: watch::Sender<bool>,
}

pub struct TurnManager {
    store: Arc<Store>,
    engine: Arc<dyn Engine>,
    /// Thread id → its active turn. The claim is taken before anything is
    /// written, so two concurrent starts cannot both succeed.
    active: Mutex<HashMap<String, ActiveTurn>>,
    approvals: Arc<Approvals>,
    user_inputs: Arc<UserInputs>,
    client_tools: Arc<ClientTools>,
    snapshots: Arc<Snapshots>,
    /// Sub-agent runs: their limits, worktrees and waiters.
    agents: Arc<SubAgents>,
    /// `$CODEWHALE_HOME`: where the user's global instructions are.
    home: std::path::PathBuf,
    /// The configured MCP servers whose tools every turn is offered.
    mcp: Arc<crate::runtime::mcp::McpServersHost>,
}

impl TurnManager {
    pub fn new(
        store: Arc<Store>,
        engine: Arc<dyn Engine>,
        snapshots: Arc<Snapshots>,
        agents: Arc<SubAgents>,
        home: &std::path::Path,
    ) -> Self {
        Self {
            agents,
            home: home.to_path_buf(),
            mcp: Arc::new(crate::runtime::mcp::McpServersHost::new(
                home,
                home.to_path_buf(),
            )),
            approvals: Arc::new(Approvals::new(store.clone(), DEFAULT_TIMEOUT)),
            user_inputs: Arc::new(UserInputs::new(store.clone(), DEFAULT_TIMEOUT)),
            client_tools: Arc::new(ClientTools::new(store.clone(), DEFAULT_TIMEOUT)),
            store,
            engine,
            snapshots,
            active: Mutex::new(HashMap::new()),
        }
    }

    /// How long approvals, questions and client tool calls wait for their
    /// client (300 s unless a test or `codewhale exec` says otherwise).
    /// The configured MCP servers, shared with the runtime's API.
    pub fn with_mcp(mut self, mcp: Arc<crate::runtime::mcp::McpServersHost>) -> Self {
        self.mcp = mcp;
        self
    }

    pub fn with_wait_timeout(mut self, timeout: Duration) -> Self {
        self.approvals = Arc::new(Approvals::new(self.store.clone(), timeout));
        self.user_inputs = Arc::new(UserInputs::new(self.store.clone(), timeout));
        self.client_tools = Arc::new(ClientTools::new(self.store.clone(), timeout));
        self
    }

    /// The providers and models turns can use.
    pub fn providers(&self) -> Vec<protocol::ProviderModels> {
        self.engine.providers()
    }

    pub fn approvals(&self) -> &Arc<Approvals> {
        &self.approvals
    }

    pub fn user_inputs(&self) -> &Arc<UserInputs> {
        &self.user_inputs
    }

    pub fn client_tools(&self) -> &Arc<ClientTools> {
        &self.client_tools
    }

    /// The thread snapshot with what is pending in memory and the model
    /// its next turn will use.
    pub async fn detail(&self, thread_id: &str) -> Result<protocol::ThreadDetail, RuntimeError> {
        let mut detail = threads::detail(&self.store, thread_id).await?;
        let id = &detail.thread.id;
        detail.pending_approvals = self.approvals.pending_for(id).await;
        detail.pending_user_inputs = self.user_inputs.pending_for(id).await;
        detail.pending_dynamic_tool_calls = self.client_tools.pending_for(id).await;
        detail.effective_model = self.effective_model(&detail.thread);
        Ok(detail)
    }

    fn claim(&self, thread_id: &str, turn: ActiveTurn) -> Result<(), RuntimeError> {
        let mut active = self.lock();
        if active.contains_key(thread_id) {
            return Err(RuntimeError::Conflict(format!(
                "thread {thread_id} already has an active turn"
            )));
        }
        active.insert(thread_id.to_string(), turn);
        Ok(())
    }

    /// Holds the thread's active-turn slot without a turn (while undo
    /// changes files and conversation), refusing when a turn is running.
    pub(crate) fn hold(self: &Arc<Self>, thread_id: &str) -> Result<Hold, RuntimeError> {
        let id = crate::runtime::ids::new("hold_");
        let (steer, _) = mpsc::channel(1);
        let (interrupt, _) = watch::channel(false);
        self.claim(
            thread_id,
            ActiveTurn {
                turn_id: id.clone(),
                steer,
                interrupt,
            },
        )
        .map_err(|_| {
            RuntimeError::Conflict(format!(
                "thread {thread_id} has an active turn; interrupt it or wait for it to end"
            ))
        })?;
        Ok(Hold {
            manager: Arc::clone(self),
            thread_id: thread_id.to_string(),
            id,
        })
    }

    /// Threads with a turn running (not merely held by an undo or restore).
    pub(crate) fn running_threads(&self) -> Vec<String> {
        self.running_turns()
            .into_iter()
            .map(|(thread, _)| thread)
            .collect()
    }

    /// (thread id, turn id) of every turn running in this process.
    pub(crate) fn running_turns(&self) -> Vec<(String, String)> {
        self.lock()
            .iter()
            .filter(|(_, active)| active.turn_id.starts_with(crate::runtime::ids::TURN))
            .map(|(thread, active)| (thread.clone(), active.turn_id.clone()))
            .collect()
    }

    fn release(&self, thread_id: &str, turn_id: &str) {
        let mut active = self.lock();
        if active.get(thread_id).is_some_and(|a| a.turn_id == turn_id) {
            active.remove(thread_id);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, ActiveTurn>> {
        self.active.lock().unwrap_or_else(|p| p.into_inner())
    }
}
