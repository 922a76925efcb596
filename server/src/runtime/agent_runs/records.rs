//! Receipts: an agent run as `/v1/agent-runs` shows it, read from the run
//! row and the child turn's own records (its status, items and usage), so
//! the receipt never disagrees with the child's thread.

use crate::{
    runtime::{error::RuntimeError, ids, Runtime},
    store::{self, agent_runs::AgentRunRow, Store},
};
use protocol::{
    AgentArtifact, AgentFollowUp, AgentIsolation, AgentRun, AgentRunEvent, AgentRunSpec,
    AgentRunStatus, AgentRuns, AgentTakeover, AgentVerification, ItemKind, ItemStatus,
    ListAgentRuns, Mode, TurnItemRecord, TurnRecord, TurnStatus, VerificationCommand,
    SUB_AGENT_ACTOR,
};
use serde_json::Value;

/// Steps a receipt lists (the latest).
const MAX_EVENTS: usize = 50;
/// Commands a receipt lists as verification (the latest).
const MAX_COMMANDS: usize = 50;
/// The longest answer a receipt or an event carries.
pub(super) const MAX_ANSWER: usize = 16 * 1024;
/// Run ids: `agent_<hex>`.
pub const RUN: &str = "agent_";
/// The most runs one list returns.
pub const MAX_LIST: u32 = 200;

impl Runtime {
    /// Agent runs, newest first; only one parent thread's when asked.
    pub async fn agent_runs(&self, query: ListAgentRuns) -> Result<AgentRuns, RuntimeError> {
        let limit = match query.limit {
            None => 50,
            Some(limit @ 1..=MAX_LIST) => i64::from(limit),
            Some(other) => {
                return Err(RuntimeError::invalid(format!(
                    "limit must be between 1 and {MAX_LIST} (got {other})"
                )))
            }
        };
        let parent = query
            .parent_thread_id
            .as_deref()
            .map(|id| ids::parse(ids::THREAD, id, "parent thread"))
            .transpose()?;
        let rows = store::agent_runs::list(self.store.pool(), parent, limit).await?;
        let mut runs = Vec::with_capacity(rows.len());
        for row in rows {
            runs.push(receipt(&self.store, row).await?);
        }
        Ok(AgentRuns { runs })
    }

    /// One run, by its id or by its child thread's (the worker's) id. An id
    /// of neither shape names no run: a 404 like any unknown id, since other
    /// resources' ids (an automation's `arun_…`) are fair things to ask about.
    pub async fn agent_run(&self, id: &str) -> Result<AgentRun, RuntimeError> {
        let row = self.agent_run_row(id).await?;
        receipt(&self.store, row).await
    }

    pub(super) async fn agent_run_row(&self, id: &str) -> Result<AgentRunRow, RuntimeError> {
        let not_found = || RuntimeError::NotFound(format!("agent run {id} not found"));
        let shaped = ids::parse(RUN, id, "agent run").is_ok()
            || ids::parse(ids::THREAD, id, "agent run").is_ok();
        if !shaped {
            return Err(not_found());
        }
        store::agent_runs::get(self.store.pool(), id)
            .await?
            .ok_or_else(not_found)
    }
}

/// The receipt of `row` as things are now.
pub(super) async fn receipt(store: &Store, row: AgentRunRow) -> Result<AgentRun, RuntimeError> {
    let mut conn = store.conn().await?;
    let turn = store::turns::get(&mut conn, &row.turn_id).await?;
    let items = store::turns::items_of_turn(&mut conn, &row.turn_id).await?;
    let later_turns: Vec<String> = store::turns::by_thread(&mut conn, &row.thread_id)
        .await?
        .into_iter()
        .filter(|t| t.id != row.turn_id)
        .map(|t| t.id)
        .collect();
    drop(conn);
    let status = turn
        .as_ref()
        .map_or(AgentRunStatus::Failed, |t| status_of(t.status));
    let error = turn_error(turn.as_ref());
    let (events, events_omitted) = events(&items);
    let mut artifacts = file_changes(&items);
    if let Some(branch) = &row.branch {
        artifacts.push(AgentArtifact::Branch {
            branch: branch.clone(),
            worktree: row.worktree.clone().filter(|_| row.cleaned_up_at.is_none()),
            commit: row.commit_oid.clone(),
            diff_stat: row
                .diff_stat
                .as_deref()
                .and_then(|s| serde_json::from_str(s).ok())
                .unwrap_or_default(),
        });
    }
    Ok(AgentRun {
        worker_id: row.thread_id.clone(),
        actor_kind: SUB_AGENT_ACTOR.to_string(),
        status,
        answer: final_answer(&items),
        error,
        ended_at: row.ended_at.clone(),
        events,
        events_omitted,
        follow_up: status.is_terminal().then(|| AgentFollowUp {
            thread_id: row.thread_id.clone(),
            hint: format!(
                "start a turn on thread {} to go on with this sub-agent",
                row.thread_id
            ),
        }),
        takeover: (!later_turns.is_empty()).then_some(AgentTakeover {
            turn_ids: later_turns,
        }),
        artifacts,
        usage: turn.as_ref().map(|t| t.usage.clone()).unwrap_or_default(),
        verification: verification(&items),
        created_at: row.created_at.clone(),
        thread_id: row.thread_id.clone(),
        turn_id: row.turn_id.clone(),
        run_id: row.id.clone(),
        spec: spec(row),
    })
}

fn spec(row: AgentRunRow) -> AgentRunSpec {
    AgentRunSpec {
        run_id: row.id,
        prompt: row.prompt,
        mode: Mode::parse(&row.mode).unwrap_or_default(),
        isolation: AgentIsolation::parse(&row.isolation).unwrap_or_default(),
        wait: row.wait,
        model: row.model,
        model_provider: row.model_provider,
        workspace: row.workspace,
        parent_thread_id: row.parent_thread_id,
        parent_turn_id: row.parent_turn_id,
        parent_item_id: row.parent_item_id,
        depth: u32::try_from(row.depth).unwrap_or(0),
    }
}

pub(super) fn status_of(status: TurnStatus) -> AgentRunStatus {
    match status {
        TurnStatus::Queued | TurnStatus::InProgress => AgentRunStatus::Running,
        TurnStatus::Completed => AgentRunStatus::Completed,
        TurnStatus::Failed => AgentRunStatus::Failed,
        TurnStatus::Interrupted | TurnStatus::Canceled => AgentRunStatus::Interrupted,
    }
}

/// The child's last completed message, clipped.
pub(super) fn final_answer(items: &[TurnItemRecord]) -> Option<String> {
    let mut answer = items
        .iter()
        .rev()
        .find(|i| i.kind == ItemKind::AgentMessage && i.status == ItemStatus::Completed)
        .and_then(|i| i.detail.clone())?;
    crate::text::clip(&mut answer, MAX_ANSWER, "…");
    Some(answer)
}

/// The turn's steps after the prompt, the latest `MAX_EVENTS`.
fn events(items: &[TurnItemRecord]) -> (Vec<AgentRunEvent>, u32) {
    let steps: Vec<&TurnItemRecord> = items
        .iter()
        .filter(|i| i.kind != ItemKind::UserMessage)
        .collect();
    let skip = steps.len().saturating_sub(MAX_EVENTS);
    let events = steps[skip..]
        .iter()
        .map(|item| AgentRunEvent {
            item_id: item.id.clone(),
            kind: item.kind,
            status: item.status,
            summary: item.summary.clone(),
            at: item
                .ended_at
                .clone()
                .or_else(|| item.started_at.clone())
                .unwrap_or_default(),
        })
        .collect();
    (events, u32::try_from(skip).unwrap_or(u32::MAX))
}

/// Each file the child changed, once (its first change).
fn file_changes(items: &[TurnItemRecord]) -> Vec<AgentArtifact> {
    let mut seen = std::collections::HashSet::new();
    let mut artifacts = Vec::new();
    for item in items
        .iter()
        .filter(|i| i.kind == ItemKind::FileChange && i.status == ItemStatus::Completed)
    {
        let mut paths: Vec<&str> = item.metadata["path"].as_str().into_iter().collect();
        if let Some(files) = item.metadata["files"].as_array() {
            paths.extend(files.iter().filter_map(|f| f["path"].as_str()));
        }
        for path in paths {
            if seen.insert(path.to_string()) {
                artifacts.push(AgentArtifact::FileChange {
                    path: path.to_string(),
                    item_id: item.id.clone(),
                });
            }
        }
    }
    artifacts
}

/// The commands the child ran: what it checked, and whether it passed.
fn verification(items: &[TurnItemRecord]) -> AgentVerification {
    let commands: Vec<VerificationCommand> = items
        .iter()
        .filter(|i| i.kind == ItemKind::CommandExecution && i.status != ItemStatus::InProgress)
        .map(|item| {
            let exit_code = item.metadata["exit_code"].as_i64();
            VerificationCommand {
                item_id: item.id.clone(),
                command: command_of(&item.metadata).unwrap_or_else(|| item.summary.clone()),
                exit_code,
                ok: item.status == ItemStatus::Completed && exit_code == Some(0),
            }
        })
        .collect();
    let passed = commands.iter().filter(|c| c.ok).count();
    let failed = commands.len() - passed;
    let skip = commands.len().saturating_sub(MAX_COMMANDS);
    AgentVerification {
        commands: commands[skip..].to_vec(),
        passed: u32::try_from(passed).unwrap_or(u32::MAX),
        failed: u32::try_from(failed).unwrap_or(u32::MAX),
    }
}

fn command_of(metadata: &Value) -> Option<String> {
    if let Some(command) = metadata["command"].as_str() {
        return Some(command.to_string());
    }
    let arguments: Value = serde_json::from_str(metadata["arguments"].as_str()?).ok()?;
    arguments["command"].as_str().map(str::to_string)
}

/// The turn's error, or that there is no turn.
fn turn_error(turn: Option<&TurnRecord>) -> Option<String> {
    match turn {
        Some(turn) => turn.error.clone(),
        None => Some("the sub-agent's turn was never recorded".into()),
    }
}
