//! What a running turn may do with sub-agents: spawn one (a child thread
//! with the parent's settings, never more permissive, and a turn on it),
//! wait for a run to end, read a run. Only the runs a thread spawned are
//! its to wait on or read.

use super::{cleanup, records, settle, SubAgents};
use crate::{
    child::worktree,
    clock,
    runtime::{
        engine::{ClientGate, TurnSettings},
        error::RuntimeError,
        ids,
        tasks::MAX_PROMPT_BYTES,
        threads,
        turns::TurnManager,
    },
    store::{self, agent_runs::AgentRunRow},
};
use protocol::{
    AgentIsolation, AgentRun, CreateThread, Mode, PatchThread, StartTurn, ThreadRecord,
};
use std::{path::Path, sync::Arc};
use tokio::sync::watch;

/// A sub-agent the model asked for.
#[derive(Clone, Debug)]
pub struct SpawnRequest {
    pub prompt: String,
    /// `agent` or `plan`; the parent's mode when not given. A read-only
    /// parent's sub-agents are read-only too.
    pub mode: Option<Mode>,
    pub isolation: AgentIsolation,
    pub wait: bool,
}

/// One turn's access to sub-agents.
#[derive(Clone)]
pub struct AgentGate {
    pub(in crate::runtime) agents: Arc<SubAgents>,
    pub(in crate::runtime) manager: Arc<TurnManager>,
    pub(in crate::runtime) thread: ThreadRecord,
    pub(in crate::runtime) turn_id: String,
    pub(in crate::runtime) settings: TurnSettings,
    pub(in crate::runtime) interrupt: watch::Receiver<bool>,
    /// The parent's approvals: a child auto-approves only when they do.
    pub(in crate::runtime) client: ClientGate,
}

impl AgentGate {
    /// How deep this turn's thread is (0: not a sub-agent).
    pub async fn depth(&self) -> Result<u32, String> {
        let mut conn = self.agents.store.conn().await.map_err(|e| e.to_string())?;
        let depth = store::agent_runs::depth_of(&mut conn, &self.thread.id)
            .await
            .map_err(|e| e.to_string())?;
        Ok(u32::try_from(depth).unwrap_or(u32::MAX))
    }

    /// Whether the tool is offered: not in review mode (a review reads and
    /// reports itself), and only while a spawn could pass the depth limit.
    /// Unknown depth offers nothing: nothing is spawned on a guess.
    pub async fn may_spawn(&self) -> bool {
        self.settings.mode != Mode::Review
            && self
                .depth()
                .await
                .is_ok_and(|depth| depth < self.agents.limits.max_depth)
    }

    /// Starts a sub-agent for the parent's item `item_id`; the receipt as
    /// it stands right after the start.
    pub async fn spawn(&self, item_id: &str, request: SpawnRequest) -> Result<AgentRun, String> {
        let prompt = request.prompt.trim().to_string();
        if prompt.is_empty() {
            return Err("prompt must not be empty".into());
        }
        if prompt.len() > MAX_PROMPT_BYTES {
            return Err(format!("prompt exceeds {MAX_PROMPT_BYTES} bytes"));
        }
        if self.settings.mode == Mode::Review {
            return Err("a review does not spawn sub-agents".into());
        }
        if *self.interrupt.borrow() {
            return Err("this turn was interrupted".into());
        }
        let limits = self.agents.limits;
        let depth = self.depth().await?.saturating_add(1);
        if depth > limits.max_depth {
            return Err(format!(
                "sub-agents may nest at most {} deep and this one would be {depth} deep; do this part yourself",
                limits.max_depth
            ));
        }
        let mode = self.child_mode(request.mode)?;
        if request.isolation == AgentIsolation::Worktree && !self.settings.mode.may_change() {
            return Err(format!(
                "a {} turn's sub-agents only read: they share its workspace (isolation shared)",
                self.settings.mode.as_str()
            ));
        }
        let Some(parent_workspace) = self.thread.workspace.clone() else {
            return Err("this thread has no workspace".into());
        };
        // A cheap early refusal, before a thread or worktree is made; the
        // check under the write lock (`settle::record_spawn`) decides.
        self.within_limits().await?;
        let run_id = ids::new(records::RUN);
        let mut row = AgentRunRow {
            id: run_id.clone(),
            parent_thread_id: self.thread.id.clone(),
            parent_turn_id: self.turn_id.clone(),
            parent_item_id: item_id.to_string(),
            thread_id: String::new(),
            turn_id: String::new(),
            depth: i64::from(depth),
            prompt: prompt.clone(),
            mode: mode.as_str().to_string(),
            isolation: request.isolation.as_str().to_string(),
            wait: request.wait,
            model: self.settings.model.clone(),
            model_provider: self.settings.model_provider.clone(),
            workspace: parent_workspace.clone(),
            worktree: None,
            git_dir: None,
            branch: None,
            base_commit: None,
            commit_oid: None,
            diff_stat: None,
            created_at: clock::now(),
            ended_at: None,
            repo_top: None,
            cleaned_up_at: None,
        };
        let top = match request.isolation {
            AgentIsolation::Worktree => Some(self.add_worktree(&mut row, &parent_workspace).await?),
            AgentIsolation::Shared => None,
        };
        let started = self.start(&mut row, depth, mode).await;
        if started.is_err() {
            if let (Some(top), Some(path), Some(branch)) = (&top, &row.worktree, &row.branch) {
                worktree::discard(top, Path::new(path), branch).await;
            }
        }
        if top.is_some() {
            self.agents.unmark_pending(&run_id);
        }
        if let Err(error) = started {
            return Err(error.to_string());
        }
        // Interrupted while starting: the parent's own stop of its children
        // may have looked before this run was recorded.
        if *self.interrupt.borrow() {
            let _ = self.manager.interrupt(&row.thread_id, &row.turn_id).await;
        }
        let unreadable = |error: String| {
            format!(
                "sub-agent {run_id} started, but its receipt could not be read ({error}); \
                 agent_result with that run_id reads it"
            )
        };
        let row = store::agent_runs::get(self.agents.store.pool(), &run_id)
            .await
            .map_err(|e| unreadable(e.to_string()))?
            .ok_or_else(|| unreadable("not recorded".into()))?;
        records::receipt(&self.agents.store, row)
            .await
            .map_err(|e| unreadable(e.to_string()))
    }

    /// Refuses a spawn the per-turn or running limit would refuse.
    async fn within_limits(&self) -> Result<(), String> {
        let limits = self.agents.limits;
        let mut conn = self.agents.store.conn().await.map_err(|e| e.to_string())?;
        let (this_turn, running) = store::agent_runs::counts(&mut conn, &self.turn_id)
            .await
            .map_err(|e| e.to_string())?;
        settle::limits_allow(this_turn, running, limits).map_err(|e| e.to_string())
    }

    /// The child thread (recorded as spawned by this turn) and its turn.
    async fn start(
        &self,
        row: &mut AgentRunRow,
        depth: u32,
        mode: Mode,
    ) -> Result<(), RuntimeError> {
        let store = &self.agents.store;
        let workspace = Path::new(&row.workspace).to_path_buf();
        let title = threads::title_from_prompt(&row.prompt).unwrap_or_else(|| "task".into());
        // Never more than the parent: the child thread keeps auto-approve
        // only when the parent thread has it saved and its turn uses it; a
        // grant of this turn alone (an override, yolo) covers the child's
        // first turn, not later ones on its thread.
        let turn_grants = self.client.auto_approves().await;
        let thread_grants = {
            let mut conn = store.conn().await?;
            store::threads::get(&mut conn, &self.thread.id)
                .await?
                .is_some_and(|t| t.auto_approve)
        };
        let kept = turn_grants && thread_grants;
        let child = threads::create(
            store,
            &workspace,
            CreateThread {
                model: row.model.clone(),
                model_provider: row.model_provider.clone(),
                workspace: Some(row.workspace.clone()),
                mode: Some(mode.as_str().to_string()),
                allow_shell: Some(self.settings.allow_shell),
                trust_mode: Some(self.settings.trust_mode),
                auto_approve: Some(kept),
                system_prompt: Some(system_prompt(
                    depth,
                    self.agents.limits.max_depth,
                    self.instructions().await?.as_deref(),
                )),
                title: Some(format!("Sub-agent: {title}")),
                dynamic_tools: None,
            },
        )
        .await?;
        row.thread_id = child.id.clone();
        let request = StartTurn {
            prompt: row.prompt.clone(),
            auto_approve: (turn_grants && !kept).then_some(true),
            ..StartTurn::default()
        };
        let started = self
            .manager
            .start_child(&child.id, request, row.clone(), self.agents.limits)
            .await;
        match started {
            Ok(turn_id) => {
                row.turn_id = turn_id;
                Ok(())
            }
            Err(error) => {
                // Nothing ran in it: out of the way, kept for the record.
                let archive = PatchThread {
                    archived: Some(true),
                    ..PatchThread::default()
                };
                let _ = threads::patch(store, &child.id, archive).await;
                Err(error)
            }
        }
    }

    /// The instructions of the thread at the top of this chain of
    /// sub-agents (a sub-agent's own prompt starts with its preamble).
    async fn instructions(&self) -> Result<Option<String>, RuntimeError> {
        let pool = self.agents.store.pool();
        let mut top = self.thread.id.clone();
        // Bounded: a chain is at most max_depth long.
        for _ in 0..=self.agents.limits.max_depth {
            match store::agent_runs::get(pool, &top).await? {
                Some(run) if run.thread_id == top => top = run.parent_thread_id,
                _ => break,
            }
        }
        if top == self.thread.id {
            return Ok(self.thread.system_prompt.clone());
        }
        let mut conn = self.agents.store.conn().await?;
        let thread = store::threads::get(&mut conn, &top).await?;
        Ok(thread.and_then(|t| t.system_prompt))
    }

    /// A worktree and branch of the run's own, from the workspace's HEAD;
    /// the top of the repository it belongs to.
    async fn add_worktree(
        &self,
        row: &mut AgentRunRow,
        workspace: &str,
    ) -> Result<std::path::PathBuf, String> {
        let repository = worktree::inspect(Path::new(workspace)).await?;
        let path = self.agents.worktrees.join(&row.id);
        let branch = cleanup::branch_of(&row.id);
        self.agents.mark_pending(&row.id, &repository.top)?;
        let made = worktree::add_for_workspace(&repository, &path, &branch).await;
        let (made, inside) = made.inspect_err(|_| self.agents.unmark_pending(&row.id))?;
        row.workspace = inside.display().to_string();
        row.worktree = Some(made.path.display().to_string());
        row.git_dir = Some(made.git_dir.display().to_string());
        row.branch = Some(branch);
        row.base_commit = Some(repository.head.clone());
        row.repo_top = Some(repository.top.display().to_string());
        Ok(repository.top)
    }

    /// The child's mode: as asked (agent or plan), the parent's otherwise;
    /// never able to change what the parent may not.
    fn child_mode(&self, asked: Option<Mode>) -> Result<Mode, String> {
        let parent = self.settings.mode;
        let mode = match asked {
            None => parent,
            Some(mode @ (Mode::Agent | Mode::Plan)) => mode,
            Some(other) => {
                return Err(format!(
                    "a sub-agent's mode is agent or plan (got {})",
                    other.as_str()
                ))
            }
        };
        Ok(match (parent.may_change(), mode) {
            (false, _) | (_, Mode::Review) => Mode::Plan,
            (true, mode) => mode,
        })
    }

    /// Waits until the run ends (or this turn is interrupted), then its receipt.
    pub async fn wait(&self, run_id: &str) -> Result<AgentRun, String> {
        let mut interrupt = self.interrupt.clone();
        loop {
            let mut ended = self.agents.ended.subscribe();
            let row = self.own(run_id).await?;
            if row.ended_at.is_some() {
                return records::receipt(&self.agents.store, row)
                    .await
                    .map_err(|e| e.to_string());
            }
            tokio::select! {
                changed = ended.changed() => if changed.is_err() {
                    return Err("the runtime is shutting down".into());
                },
                _ = interrupt.wait_for(|stop| *stop) => {
                    return Err("interrupted while waiting for the sub-agent".into());
                }
            }
        }
    }

    /// The run's receipt now, ended or not.
    pub async fn read(&self, run_id: &str) -> Result<AgentRun, String> {
        let row = self.own(run_id).await?;
        records::receipt(&self.agents.store, row)
            .await
            .map_err(|e| e.to_string())
    }

    /// A run this thread spawned; any other is "not found" to it.
    async fn own(&self, run_id: &str) -> Result<AgentRunRow, String> {
        let missing = || format!("no sub-agent run {run_id} was spawned by this thread");
        let id = ids::parse(records::RUN, run_id.trim(), "run").map_err(|_| missing())?;
        match store::agent_runs::get(self.agents.store.pool(), id).await {
            Ok(Some(row)) if row.parent_thread_id == self.thread.id && row.id == id => Ok(row),
            Ok(_) => Err(missing()),
            Err(error) => Err(error.to_string()),
        }
    }
}

/// The child's system prompt: what it is and what its answer is for, then
/// the instructions of the thread that started the chain, which bind every
/// sub-agent under it.
fn system_prompt(depth: u32, max_depth: u32, parent: Option<&str>) -> String {
    let preamble = format!(
        "You are a sub-agent (depth {depth} of at most {max_depth}): another agent delegated the \
         task in the next message to you. Do it within this workspace, check your work where you \
         can, and end with a concise report of what you did, what you found and what is left: \
         that final message is returned to the agent that spawned you."
    );
    match parent.map(str::trim).filter(|p| !p.is_empty()) {
        Some(parent) => format!("{preamble}\n\n{parent}"),
        None => preamble,
    }
}
