//! Taking turns back: undo (the last turn's files and its place in the
//! conversation, together), retry and edit (undo, then the prompt again),
//! restore (any snapshot of the thread's workspace), and fork at a user
//! message (a new thread that ends before it, with the workspace as it was
//! there available to restore).
//!
//! Files and conversation move together or not at all: undo holds the
//! thread's active-turn slot, restores files with the compare-and-swap of
//! `snapshots`, then marks the turn undone; if that write fails, the files
//! are put back. Retry and edit check that their new turn could start
//! before they undo anything.

use super::{
    error::RuntimeError,
    ids,
    snapshots::{Owner, Scope},
    threads, Runtime,
};
use crate::{
    clock,
    store::{self, NewEvent},
};
use protocol::{
    EditLastTurn, EventPayload, ForkAtUserMessage, ForkedAt, ItemKind, Rerun, RestoreReason,
    RestoreSnapshot, Restored, RetryTurn, SnapshotKind, SnapshotRecord, StartTurn, TurnPayload,
    TurnRecord, Undone,
};
use std::path::PathBuf;

impl Runtime {
    /// `GET /v1/snapshots`: newest first, every workspace.
    pub async fn snapshots(&self, limit: Option<u32>) -> Result<Vec<SnapshotRecord>, RuntimeError> {
        self.snapshots.recent(limit).await
    }

    /// `GET /v1/threads/{id}/snapshots`: newest first.
    pub async fn thread_snapshots(
        &self,
        thread_id: &str,
        limit: Option<u32>,
    ) -> Result<Vec<SnapshotRecord>, RuntimeError> {
        let (thread_id, _) = self.workspace_of(thread_id).await?;
        self.snapshots.of_thread(&thread_id, limit).await
    }

    /// `POST /v1/threads/{id}/snapshots/restore`.
    pub async fn restore_snapshot(
        &self,
        thread_id: &str,
        request: RestoreSnapshot,
    ) -> Result<Restored, RuntimeError> {
        let (thread_id, workspace) = self.workspace_of(thread_id).await?;
        let _hold = self.turns.hold(&thread_id)?;
        self.check_workspace_idle(&thread_id, &workspace).await?;
        self.snapshots
            .restore(
                &workspace,
                &thread_id,
                &request.snapshot_id,
                RestoreReason::Restore,
                Scope::default(),
            )
            .await
    }

    /// `POST /v1/threads/{id}/undo`.
    pub async fn undo(&self, thread_id: &str) -> Result<Undone, RuntimeError> {
        self.undo_last(thread_id, RestoreReason::Undo).await
    }

    /// `POST /v1/threads/{id}/retry`: the last prompt again (on another
    /// model if asked), after taking the last turn back.
    pub async fn retry(&self, thread_id: &str, request: RetryTurn) -> Result<Rerun, RuntimeError> {
        let prompt = self.last_prompt(thread_id).await?;
        let start = StartTurn {
            prompt,
            model: request.model,
            model_provider: request.model_provider,
            ..StartTurn::default()
        };
        self.rerun(thread_id, start, RestoreReason::Retry).await
    }

    /// `POST /v1/threads/{id}/edit-last-turn`: the last turn taken back and
    /// `prompt` sent in its place.
    pub async fn edit_last_turn(
        &self,
        thread_id: &str,
        request: EditLastTurn,
    ) -> Result<Rerun, RuntimeError> {
        self.last_prompt(thread_id).await?;
        let start = StartTurn {
            prompt: request.prompt,
            ..StartTurn::default()
        };
        self.rerun(thread_id, start, RestoreReason::Edit).await
    }

    /// `POST /v1/threads/{id}/fork-at-user-message`.
    pub async fn fork_at_user_message(
        &self,
        thread_id: &str,
        request: ForkAtUserMessage,
    ) -> Result<ForkedAt, RuntimeError> {
        let (thread, cut) = threads::fork(&self.store, thread_id, Some(&request.item_id)).await?;
        let snapshot = match (&thread.workspace, cut) {
            (Some(workspace), Some(turn)) => {
                self.fork_point(&thread.id, &PathBuf::from(workspace), &turn)
                    .await?
            }
            _ => None,
        };
        Ok(ForkedAt { thread, snapshot })
    }

    /// The workspace as it was when `turn` began: its pre-turn snapshot,
    /// else the newest snapshot taken before it (none: not known).
    async fn fork_point(
        &self,
        fork_id: &str,
        workspace: &std::path::Path,
        turn: &TurnRecord,
    ) -> Result<Option<SnapshotRecord>, RuntimeError> {
        let source = match self
            .snapshots
            .of_turn(&turn.id, SnapshotKind::PreTurn)
            .await?
        {
            Some(row) => Some(row),
            None => {
                self.snapshots
                    .latest_before(workspace, &turn.created_at)
                    .await?
            }
        };
        let Some(source) = source else {
            return Ok(None);
        };
        let owner = Owner {
            thread_id: fork_id,
            turn_id: None,
        };
        let record = self
            .snapshots
            .share(&source, owner, SnapshotKind::ForkPoint)
            .await?;
        Ok(Some(record))
    }

    async fn rerun(
        &self,
        thread_id: &str,
        start: StartTurn,
        reason: RestoreReason,
    ) -> Result<Rerun, RuntimeError> {
        let (thread_id, _) = self.workspace_of(thread_id).await?;
        self.turns.check_start(&thread_id, &start).await?;
        let undone = self.undo_last(&thread_id, reason).await?;
        let started = self.turns.start(&thread_id, start).await?;
        Ok(Rerun { undone, started })
    }

    async fn undo_last(
        &self,
        thread_id: &str,
        reason: RestoreReason,
    ) -> Result<Undone, RuntimeError> {
        let (thread_id, workspace) = self.workspace_of(thread_id).await?;
        let _hold = self.turns.hold(&thread_id)?;
        self.check_workspace_idle(&thread_id, &workspace).await?;
        let turn = self.last_live_turn(&thread_id).await?;
        // Only what the turn changed goes back (everything since its start
        // when it left no post-turn snapshot); other edits stay.
        let restored = match self
            .snapshots
            .of_turn(&turn.id, SnapshotKind::PreTurn)
            .await?
        {
            Some(pre) => {
                let post = self
                    .snapshots
                    .of_turn(&turn.id, SnapshotKind::PostTurn)
                    .await?;
                let scope = Scope {
                    only_changed_by: post.as_ref(),
                    review_action_id: None,
                };
                let restore = self
                    .snapshots
                    .restore(&workspace, &thread_id, &pre.id, reason, scope);
                Some(restore.await?)
            }
            None => None,
        };
        match mark_undone(self, &turn).await {
            Ok(turn) => Ok(Undone { turn, restored }),
            Err(error) => {
                if let Some(before) = restored.as_ref().and_then(|r| r.before.as_deref()) {
                    let back = self
                        .snapshots
                        .restore(&workspace, &thread_id, before, reason, Scope::default())
                        .await;
                    if let Err(back) = back {
                        tracing::error!(error = %back, "putting files back after a failed undo failed");
                    }
                }
                Err(error)
            }
        }
    }

    /// The newest turn not yet undone; a turn still running refuses.
    async fn last_live_turn(&self, thread_id: &str) -> Result<TurnRecord, RuntimeError> {
        let mut conn = self.store.conn().await?;
        let turns = store::turns::by_thread(&mut conn, thread_id).await?;
        let turn = turns
            .into_iter()
            .rev()
            .find(|t| t.undone_at.is_none())
            .ok_or_else(|| {
                RuntimeError::Conflict(format!("thread {thread_id} has no turn to undo"))
            })?;
        if turn.status.is_active() {
            return Err(RuntimeError::Conflict(format!(
                "turn {} is still running; interrupt it first",
                turn.id
            )));
        }
        Ok(turn)
    }

    /// The user's prompt of the newest turn not undone.
    async fn last_prompt(&self, thread_id: &str) -> Result<String, RuntimeError> {
        // An unknown thread is a 404 before "no turn to undo" is a 409.
        let (thread_id, _) = self.workspace_of(thread_id).await?;
        let thread_id = thread_id.as_str();
        let turn = self.last_live_turn(thread_id).await?;
        let mut conn = self.store.conn().await?;
        let items = store::turns::items_by_thread(&mut conn, thread_id).await?;
        // Its prompt is the runtime's, and its settings were the apply's
        // (agent mode, no commands): sent again as a plain turn, it would
        // run with the thread's.
        if items
            .iter()
            .any(|item| item.turn_id == turn.id && item.kind == ItemKind::ReviewAction)
        {
            return Err(RuntimeError::Conflict(format!(
                "turn {} applied review findings; undo it and apply them again instead",
                turn.id
            )));
        }
        items
            .into_iter()
            .find(|item| item.turn_id == turn.id && item.kind == ItemKind::UserMessage)
            .and_then(|item| item.detail)
            .filter(|text| !text.trim().is_empty())
            .ok_or_else(|| {
                RuntimeError::Conflict(format!(
                    "turn {} has no prompt to send again (a compaction?)",
                    turn.id
                ))
            })
    }

    /// Refuses while another thread's turn runs in `workspace`: its writes
    /// would race the restore, and the compare-and-swap would only catch a
    /// clash after the fact. (The caller holds its own thread's slot.)
    pub(super) async fn check_workspace_idle(
        &self,
        thread_id: &str,
        workspace: &std::path::Path,
    ) -> Result<(), RuntimeError> {
        let others: Vec<String> = self
            .turns
            .running_threads()
            .into_iter()
            .filter(|other| other != thread_id)
            .collect();
        if others.is_empty() {
            return Ok(());
        }
        let same = |path: &std::path::Path| {
            std::fs::canonicalize(path).ok() == std::fs::canonicalize(workspace).ok()
        };
        let mut conn = self.store.conn().await?;
        for other in others {
            let Some(row) = store::threads::get(&mut conn, &other).await? else {
                continue;
            };
            if row.workspace.as_deref().is_some_and(|w| same(w.as_ref())) {
                return Err(RuntimeError::Conflict(format!(
                    "thread {other} is running a turn in this workspace; \
                     wait for it to end or interrupt it, then try again"
                )));
            }
        }
        Ok(())
    }

    /// The thread's id (checked) and its workspace directory.
    pub(super) async fn workspace_of(
        &self,
        thread_id: &str,
    ) -> Result<(String, PathBuf), RuntimeError> {
        let thread_id = ids::parse(ids::THREAD, thread_id, "thread")?;
        let mut conn = self.store.conn().await?;
        let thread = store::threads::get(&mut conn, thread_id)
            .await?
            .ok_or_else(|| RuntimeError::NotFound(format!("thread {thread_id} not found")))?;
        let workspace = thread.workspace.ok_or_else(|| {
            RuntimeError::Conflict(format!("thread {thread_id} has no workspace"))
        })?;
        Ok((thread_id.to_string(), PathBuf::from(workspace)))
    }
}

/// Sets `undone_at` and says so on the stream, in one transaction.
async fn mark_undone(runtime: &Runtime, turn: &TurnRecord) -> Result<TurnRecord, RuntimeError> {
    let mut turn = turn.clone();
    turn.undone_at = Some(clock::now());
    let mut tx = runtime.store.begin_write().await?;
    store::turns::set_undone(tx.conn(), &turn.id, turn.undone_at.as_deref()).await?;
    let payload = EventPayload::TurnUndone(TurnPayload {
        turn: turn.clone(),
        recovered: None,
    });
    tx.append(NewEvent::turn(&turn.thread_id, &turn.id, payload))
        .await?;
    tx.commit().await?;
    Ok(turn)
}
