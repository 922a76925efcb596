//! A turn's run: the engine task (its context, the interrupt grace, a
//! crashed engine), settling what it left waiting, and the terminal write.

use super::{recovery::unsettled_requests, TurnManager, INTERRUPT_GRACE, RESTART_ERROR};
use crate::{
    clock,
    runtime::{
        agent_runs::{self, AgentGate},
        engine::{Checkpoint, ClientGate, Outcome, TurnContext, TurnInput, TurnSettings},
        hosted_tools::Hosted,
        turn_writer,
    },
    store::{self, NewEvent, StoreError},
};
use futures::FutureExt;
use protocol::{
    EventPayload, ItemPayload, ItemStatus, Mode, ThreadRecord, TurnItemRecord, TurnPayload,
    TurnRecord, TurnStatus, Usage,
};
use std::{
    panic::AssertUnwindSafe,
    sync::Arc,
    time::{Duration, Instant},
};
use tokio::sync::{mpsc, watch};

/// How long an interrupted turn waits for its sub-agents to stop.
const CHILDREN_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

impl TurnManager {
    pub(super) fn spawn_run(
        self: &Arc<Self>,
        thread: ThreadRecord,
        turn: TurnRecord,
        input: TurnInput,
        (settings, instructions): (TurnSettings, crate::runtime::instructions::Instructions),
        (steers, mut interrupt): (mpsc::Receiver<String>, watch::Receiver<bool>),
        hosted: Hosted,
    ) {
        let manager = Arc::clone(self);
        let turn_id = turn.id.clone();
        tokio::spawn(async move {
            let started = Instant::now();
            let (items, writer) =
                turn_writer::spawn(manager.store.clone(), thread.id.clone(), turn.id.clone());
            let checkpoint = Checkpoint {
                snapshots: manager.snapshots.clone(),
                workspace: thread.workspace.as_ref().map(Into::into),
                thread_id: thread.id.clone(),
                turn_id: turn.id.clone(),
                taken: Default::default(),
            };
            let outcome = match manager.history(&thread.id).await {
                Err(error) => {
                    tracing::error!(%error, "reading the thread's history failed");
                    drop(items);
                    Outcome::Failed {
                        error: "could not read the thread's history".into(),
                        usage: Usage::default(),
                    }
                }
                Ok(history) => {
                    let client = ClientGate {
                        approvals: manager.approvals.clone(),
                        user_inputs: manager.user_inputs.clone(),
                        tools: manager.client_tools.clone(),
                        thread_id: thread.id.clone(),
                        turn_id: turn.id.clone(),
                        auto: if settings.mode == Mode::Yolo {
                            Some(true)
                        } else if settings.auto_approve_from_thread {
                            None
                        } else {
                            Some(settings.auto_approve)
                        },
                    };
                    let agents = AgentGate {
                        agents: manager.agents.clone(),
                        manager: manager.clone(),
                        thread: thread.clone(),
                        turn_id: turn.id.clone(),
                        settings: settings.clone(),
                        interrupt: interrupt.clone(),
                        client: client.clone(),
                    };
                    let context = TurnContext {
                        thread: thread.clone(),
                        turn_id: turn.id.clone(),
                        input,
                        settings,
                        instructions: instructions.text,
                        skills: instructions.skills,
                        history,
                        steers,
                        interrupt: interrupt.clone(),
                        items,
                        client,
                        checkpoint: checkpoint.clone(),
                        hosted,
                        agents,
                        mcp: manager.mcp.clone(),
                    };
                    let run = AssertUnwindSafe(manager.engine.run(context)).catch_unwind();
                    tokio::select! {
                        outcome = run => outcome.unwrap_or_else(|_| Outcome::Failed {
                            error: "the engine crashed".into(),
                            usage: Usage::default(),
                        }),
                        () = forced_stop(&mut interrupt) => Outcome::Interrupted { usage: Usage::default() },
                    }
                }
            };
            manager.cancel_waiting(&turn_id, &outcome).await;
            if matches!(outcome, Outcome::Interrupted { .. }) {
                manager.interrupt_children(&turn_id).await;
            }
            checkpoint.after_turn().await;
            manager.agents.commit_worktree(&turn_id).await;
            // The engine's ItemWriter was dropped with it: the writer drains.
            let drained = match writer.await {
                Ok(result) => result,
                Err(_) => Err(StoreError::Corrupt("the item writer crashed".into())),
            };
            let outcome = match drained {
                Ok(()) => outcome,
                Err(error) => {
                    tracing::error!(%error, "recording the turn's items failed");
                    Outcome::Failed {
                        error: "recording the turn failed".into(),
                        usage: usage_of(&outcome),
                    }
                }
            };
            if let Err(error) = manager
                .finish(turn, outcome, started.elapsed(), false)
                .await
            {
                tracing::error!(%error, "finishing a turn failed");
            }
            manager.release(&thread.id, &turn_id);
            manager.agents.announce_ended();
        });
    }

    /// An interrupted turn's sub-agents stop with it (the user's Stop
    /// means all of it); those of a turn that ended otherwise go on.
    async fn interrupt_children(&self, turn_id: &str) {
        for (thread_id, child_turn) in self.agents.open_children(turn_id).await {
            // A child that ended meanwhile refuses (409): nothing to do.
            let _ = self.interrupt(&thread_id, &child_turn).await;
        }
        // Their ends then come before the parent's on its stream (one
        // that takes longer is written at thread scope: `settle::end_in`).
        self.agents.children_ended(turn_id, CHILDREN_GRACE).await;
    }

    /// Settles what a finished turn left waiting on its client, each with
    /// its terminal event, before turn.completed.
    async fn cancel_waiting(&self, turn_id: &str, outcome: &Outcome) {
        let reason = match outcome {
            Outcome::Interrupted { .. } => "interrupted",
            _ => "turn_ended",
        };
        let results = [
            self.approvals.cancel_turn(turn_id).await,
            self.user_inputs.cancel_turn(turn_id).await,
            self.client_tools.cancel_turn(turn_id, reason).await,
        ];
        for error in results.into_iter().filter_map(Result::err) {
            tracing::error!(%error, "settling a finished turn's pending requests failed");
        }
    }

    /// Writes the terminal state: `settled` (receipts for requests a
    /// previous process left waiting), open items closed, the turn record,
    /// and exactly one turn.completed, in one transaction.
    pub(super) async fn finish(
        &self,
        mut turn: TurnRecord,
        outcome: Outcome,
        took: Duration,
        recovered: bool,
    ) -> Result<(), StoreError> {
        let (status, error, usage) = match outcome {
            Outcome::Completed { usage } => (TurnStatus::Completed, None, usage),
            Outcome::Failed { error, usage } => (TurnStatus::Failed, Some(error), usage),
            Outcome::Interrupted { usage } => (TurnStatus::Interrupted, None, usage),
        };
        let mut tx = self.store.begin_write().await?;
        if recovered {
            for event in unsettled_requests(tx.conn(), &turn).await? {
                tx.append(event).await?;
            }
        }
        // Counted by the store, not here: steers may have raced the end.
        if let Some(current) = store::turns::get(tx.conn(), &turn.id).await? {
            turn.steer_count = current.steer_count;
        }
        let now = clock::now();
        turn.status = status;
        turn.error = error.or_else(|| recovered.then(|| RESTART_ERROR.to_string()));
        turn.usage = usage;
        turn.ended_at = Some(now.clone());
        turn.duration_ms = Some(if recovered {
            elapsed_since(&turn.started_at)
        } else {
            took.as_millis() as u64
        });
        let (item_end, end_event): (_, fn(ItemPayload) -> EventPayload) =
            if status == TurnStatus::Failed {
                (ItemStatus::Failed, EventPayload::ItemFailed)
            } else {
                (ItemStatus::Interrupted, EventPayload::ItemInterrupted)
            };
        for mut item in store::turns::open_items(tx.conn(), &turn.id).await? {
            item.status = item_end;
            item.ended_at = Some(now.clone());
            store::turns::upsert_item(tx.conn(), &turn.thread_id, &item).await?;
            let (thread_id, item_id) = (turn.thread_id.clone(), item.id.clone());
            let payload = end_event(ItemPayload { item });
            tx.append(NewEvent::item(&thread_id, &turn.id, &item_id, payload))
                .await?;
        }
        store::turns::upsert(tx.conn(), &turn).await?;
        let payload = EventPayload::TurnCompleted(TurnPayload {
            turn: turn.clone(),
            recovered: recovered.then_some(true),
        });
        tx.append(NewEvent::turn(&turn.thread_id, &turn.id, payload))
            .await?;
        agent_runs::settle::end_in(&mut tx, &turn, recovered).await?;
        tx.commit().await
    }

    async fn history(&self, thread_id: &str) -> Result<Vec<TurnItemRecord>, StoreError> {
        let mut conn = self.store.conn().await?;
        store::turns::items_for_model(&mut conn, thread_id).await
    }
}

/// Resolves once an interrupt was requested and the engine had its grace.
async fn forced_stop(interrupt: &mut watch::Receiver<bool>) {
    if interrupt.wait_for(|requested| *requested).await.is_err() {
        std::future::pending::<()>().await;
    }
    tokio::time::sleep(INTERRUPT_GRACE).await;
}

fn usage_of(outcome: &Outcome) -> Usage {
    match outcome {
        Outcome::Completed { usage }
        | Outcome::Failed { usage, .. }
        | Outcome::Interrupted { usage } => usage.clone(),
    }
}

fn elapsed_since(started_at: &Option<String>) -> u64 {
    started_at
        .as_deref()
        .and_then(|s| chrono::DateTime::parse_from_rfc3339(s).ok())
        .map(|start| {
            (chrono::Utc::now() - start.with_timezone(&chrono::Utc))
                .num_milliseconds()
                .max(0) as u64
        })
        .unwrap_or(0)
}
