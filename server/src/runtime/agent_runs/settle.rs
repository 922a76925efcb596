//! A run's beginning and end as records: the spawn written with the child
//! turn's start, the end with its `turn.completed` (both in the caller's
//! transaction), a worktree run's work committed before that, and the
//! children a parent turn leaves running when it is interrupted.

use super::{records, SubAgentLimits, SubAgents};
use crate::{
    child::worktree::{self, Worktree},
    clock,
    runtime::{error::RuntimeError, threads},
    store::{self, agent_runs::AgentRunRow, NewEvent, StoreError, WriteTx},
};
use protocol::{AgentRunPayload, AgentRunStatus, EventPayload, TurnRecord, TurnStatus};
use std::path::PathBuf;

/// Clipped prompts in events (the receipt has it whole).
const EVENT_PROMPT_CHARS: usize = 280;

/// In the transaction that starts the child's turn: the limits checked
/// under the write lock (two spawns cannot both pass), the run recorded,
/// `agent.spawned` on the parent's stream.
pub(in crate::runtime) async fn record_spawn(
    tx: &mut WriteTx<'_>,
    run: &AgentRunRow,
    limits: SubAgentLimits,
) -> Result<(), RuntimeError> {
    // A spawn that outlived its parent's turn (interrupted meanwhile) would
    // write on a stream that turn already closed.
    let parent = store::turns::get(tx.conn(), &run.parent_turn_id).await?;
    if !parent.is_some_and(|turn| turn.status == TurnStatus::InProgress) {
        return Err(RuntimeError::Conflict(
            "the turn that asked for this sub-agent has ended".into(),
        ));
    }
    let (this_turn, running) = store::agent_runs::counts(tx.conn(), &run.parent_turn_id).await?;
    limits_allow(this_turn, running, limits)?;
    store::agent_runs::insert(tx.conn(), run).await?;
    store::agent_runs::link_item(tx.conn(), run).await?;
    let payload = AgentRunPayload {
        run_id: run.id.clone(),
        thread_id: run.thread_id.clone(),
        turn_id: run.turn_id.clone(),
        status: AgentRunStatus::Running,
        depth: u32::try_from(run.depth).unwrap_or(0),
        prompt: clipped(&run.prompt),
        answer: None,
        error: None,
        recovered: None,
    };
    tx.append(parent_event(run, EventPayload::AgentSpawned(payload)))
        .await?;
    Ok(())
}

/// Whether one more run fits: `this_turn` spawned by the turn, `running`
/// in all threads.
pub(super) fn limits_allow(
    this_turn: i64,
    running: i64,
    limits: SubAgentLimits,
) -> Result<(), RuntimeError> {
    if this_turn >= i64::from(limits.max_per_turn) {
        return Err(RuntimeError::Conflict(format!(
            "this turn has already spawned {this_turn} sub-agents, the most one turn may"
        )));
    }
    if running >= i64::from(limits.max_running) {
        return Err(RuntimeError::Conflict(format!(
            "{running} sub-agents are running, the most at once; wait for one to finish"
        )));
    }
    Ok(())
}

/// In the transaction that ends `turn`: when it is a sub-agent's, the run
/// is marked ended and `agent.completed` goes on the parent's stream.
pub(in crate::runtime) async fn end_in(
    tx: &mut WriteTx<'_>,
    turn: &TurnRecord,
    recovered: bool,
) -> Result<(), StoreError> {
    let Some(run) = store::agent_runs::open_for_turn(tx.conn(), &turn.id).await? else {
        return Ok(());
    };
    if !store::agent_runs::end(tx.conn(), &run.id, &clock::now()).await? {
        return Ok(());
    }
    let items = store::turns::items_of_turn(tx.conn(), &turn.id).await?;
    let payload = AgentRunPayload {
        run_id: run.id.clone(),
        thread_id: run.thread_id.clone(),
        turn_id: run.turn_id.clone(),
        status: records::status_of(turn.status),
        depth: u32::try_from(run.depth).unwrap_or(0),
        prompt: clipped(&run.prompt),
        answer: records::final_answer(&items),
        error: turn.error.clone(),
        recovered: recovered.then_some(true),
    };
    // The parent's turn may have ended first (a child left running, or
    // slow to stop): its stream then hears of the end at thread scope, as
    // nothing follows a turn's turn.completed under that turn.
    let parent_open = store::turns::get(tx.conn(), &run.parent_turn_id)
        .await?
        .is_some_and(|t| t.status == TurnStatus::InProgress);
    let payload = EventPayload::AgentCompleted(payload);
    let event = if parent_open {
        parent_event(&run, payload)
    } else {
        NewEvent::thread(&run.parent_thread_id, payload)
    };
    tx.append(event).await?;
    Ok(())
}

fn parent_event(run: &AgentRunRow, payload: EventPayload) -> NewEvent {
    NewEvent::item(
        &run.parent_thread_id,
        &run.parent_turn_id,
        &run.parent_item_id,
        payload,
    )
}

fn clipped(prompt: &str) -> String {
    let mut prompt = prompt.to_string();
    crate::text::clip(&mut prompt, EVENT_PROMPT_CHARS, "…");
    prompt
}

impl SubAgents {
    /// Before a sub-agent's turn is recorded ended: a worktree run's
    /// changes committed on its branch and measured against its base. A
    /// failure is logged; the receipt then shows the branch without a commit.
    pub(in crate::runtime) async fn commit_worktree(&self, turn_id: &str) {
        let row = {
            let Ok(mut conn) = self.store.conn().await else {
                return;
            };
            match store::agent_runs::open_for_turn(&mut conn, turn_id).await {
                Ok(Some(row)) => row,
                Ok(None) => return,
                Err(error) => {
                    tracing::warn!(%error, "reading an agent run failed");
                    return;
                }
            }
        };
        let (Some(path), Some(git_dir), Some(branch), Some(base)) =
            (&row.worktree, &row.git_dir, &row.branch, &row.base_commit)
        else {
            return;
        };
        let tree = Worktree {
            path: PathBuf::from(path),
            git_dir: PathBuf::from(git_dir),
        };
        let title = threads::title_from_prompt(&row.prompt).unwrap_or_else(|| "sub-agent".into());
        let message = format!("{title}\n\ncodewhale sub-agent run {}", row.id);
        let result = async {
            let commit = worktree::commit_all(&tree, branch, &message).await?;
            let stat = worktree::diff_stat(&tree, base, branch).await?;
            let stat = serde_json::to_string(&stat).map_err(|e| e.to_string())?;
            store::agent_runs::set_result(self.store.pool(), &row.id, commit.as_deref(), &stat)
                .await
                .map_err(|e| e.to_string())
        };
        if let Err(error) = result.await {
            tracing::warn!(%error, run = %row.id, "committing a sub-agent's worktree failed");
        }
    }

    /// Waits until every run `parent_turn_id` spawned has ended, `grace`
    /// at most.
    pub(in crate::runtime) async fn children_ended(
        &self,
        parent_turn_id: &str,
        grace: std::time::Duration,
    ) {
        let waiting = async {
            loop {
                let mut ended = self.ended.subscribe();
                if self.open_children(parent_turn_id).await.is_empty() {
                    return;
                }
                if ended.changed().await.is_err() {
                    return;
                }
            }
        };
        let _ = tokio::time::timeout(grace, waiting).await;
    }

    /// The runs a parent turn spawned that are still going: (thread, turn).
    pub(in crate::runtime) async fn open_children(
        &self,
        parent_turn_id: &str,
    ) -> Vec<(String, String)> {
        match store::agent_runs::open_children(self.store.pool(), parent_turn_id).await {
            Ok(rows) => rows.into_iter().map(|r| (r.thread_id, r.turn_id)).collect(),
            Err(error) => {
                tracing::warn!(%error, "reading a turn's sub-agents failed");
                Vec::new()
            }
        }
    }
}
