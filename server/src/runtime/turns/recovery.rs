//! Recovery after a restart: turns a previous process left unfinished end
//! interrupted, and the requests they left waiting get terminal receipts.

use super::TurnManager;
use crate::{
    runtime::{
        approvals::{self, Decision},
        client_tools,
        engine::Outcome,
        user_input,
    },
    store::{self, NewEvent, StoreError},
};
use protocol::{EventName, TurnRecord, Usage};
use std::time::Duration;

impl TurnManager {
    /// Ends every turn a previous process left queued or in progress:
    /// interrupted, with one turn.completed {recovered: true} each. Runs
    /// before the server accepts requests; a second run finds nothing.
    /// `conn` is start-up's connection (`Store::open_holding`).
    pub async fn recover(&self, conn: &mut sqlx::SqliteConnection) -> Result<usize, StoreError> {
        let unfinished = store::turns::unfinished(conn).await?;
        let count = unfinished.len();
        for turn in unfinished {
            // A sub-agent's worktree keeps what it did, on its branch.
            self.agents.commit_worktree(&turn.id).await;
            self.finish(
                turn,
                Outcome::Interrupted {
                    usage: Usage::default(),
                },
                Duration::ZERO,
                true,
            )
            .await?;
        }
        self.agents.announce_ended();
        Ok(count)
    }
}

/// Terminal receipts for the requests of `turn` that a previous process
/// left without one: client tool calls are canceled
/// `{reason: "process_restart"}`, questions canceled, approvals denied.
pub(super) async fn unsettled_requests(
    conn: &mut sqlx::SqliteConnection,
    turn: &TurnRecord,
) -> Result<Vec<NewEvent>, StoreError> {
    let events = store::events::of_turn(conn, &turn.thread_id, &turn.id).await?;
    let settled: std::collections::HashSet<String> = events
        .iter()
        .filter(|e| {
            !e.event.ends_with(".required") && e.event != EventName::ToolCallRequested.as_str()
        })
        .filter_map(|e| request_id(&e.payload))
        .collect();
    let mut receipts = Vec::new();
    for requested in &events {
        let payload: serde_json::Value =
            serde_json::from_str(&requested.payload).unwrap_or_default();
        let Some(id) = request_id(&requested.payload).filter(|id| !settled.contains(id)) else {
            continue;
        };
        let receipt = match EventName::parse(&requested.event) {
            Some(EventName::ToolCallRequested) => client_tools::canceled_by_restart(&payload),
            Some(EventName::UserInputRequired) => {
                user_input::canceled(&id, "process_restart", |p| {
                    p.terminal = Some(true);
                    p.recovered = Some(true);
                })
            }
            Some(EventName::ApprovalRequired) => approvals::decided(&id, Decision::Deny, |p| {
                p.canceled = Some(true);
                p.terminal = Some(true);
                p.recovered = Some(true);
            }),
            _ => continue,
        };
        receipts.push(NewEvent::turn(&turn.thread_id, &turn.id, receipt));
    }
    Ok(receipts)
}

/// The request id an approval, user-input or tool-call event is about.
fn request_id(payload: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(payload).ok()?;
    ["approval_id", "input_id", "call_id"]
        .iter()
        .find_map(|key| value[*key].as_str())
        .map(str::to_string)
}
