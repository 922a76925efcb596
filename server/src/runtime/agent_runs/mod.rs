//! Sub-agents: a turn's `spawn_agent` call starts a turn on a child thread
//! (in the same workspace, or in a git worktree of its own), recorded as an
//! agent run. `agent.spawned` goes on the parent's stream in the
//! transaction that starts the child's turn, `agent.completed` in the one
//! that ends it (`TurnManager::finish` calls `settle::end_in`), so each is
//! written exactly once, restarts included. Depth, spawns per turn and
//! runs at once are limited here, whatever the model asks.
//!
//! `gate.rs`: what a turn may do (spawn, wait, read a result);
//! `records.rs`: the receipts `/v1/agent-runs` shows; `settle.rs`: a run's
//! end, a worktree run's commit, children stopped with their parent;
//! `cleanup.rs`: removing a run's worktree, and those a crash left.

mod cleanup;
mod gate;
mod records;
pub(in crate::runtime) mod settle;

pub use gate::{AgentGate, SpawnRequest};
pub use records::{MAX_LIST, RUN};

use crate::store::Store;
use std::{path::PathBuf, sync::Arc};
use tokio::sync::watch;

/// How far sub-agents may go. `[subagents]` in config.toml.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubAgentLimits {
    /// The deepest a sub-agent may be (1: sub-agents spawn none of their own).
    pub max_depth: u32,
    /// Sub-agents one turn may spawn.
    pub max_per_turn: u32,
    /// Sub-agents running at once, in all threads.
    pub max_running: u32,
}

impl Default for SubAgentLimits {
    fn default() -> Self {
        Self {
            max_depth: 2,
            max_per_turn: 4,
            max_running: 4,
        }
    }
}

pub struct SubAgents {
    store: Arc<Store>,
    limits: SubAgentLimits,
    /// `$CODEWHALE_HOME/worktrees/agents`: one worktree per isolated run.
    worktrees: PathBuf,
    /// Bumped after any turn's end is recorded: waiters read their run again.
    ended: watch::Sender<u64>,
}

impl SubAgents {
    pub fn new(store: Arc<Store>, limits: SubAgentLimits, home: &std::path::Path) -> Self {
        Self {
            store,
            limits,
            worktrees: home.join("worktrees").join("agents"),
            ended: watch::Sender::new(0),
        }
    }

    pub fn limits(&self) -> SubAgentLimits {
        self.limits
    }

    /// Wakes whoever waits on a run (after a turn's end was committed).
    pub(in crate::runtime) fn announce_ended(&self) {
        self.ended.send_modify(|n| *n = n.wrapping_add(1));
    }
}
