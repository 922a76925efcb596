//! A turn started and followed to its end, for callers that want only the
//! outcome: tasks, `prompt/run` over stdio, `codewhale_run` over MCP. The
//! stream is opened before the turn starts, so its end cannot be missed.

use super::{error::RuntimeError, stream::Cursor, Runtime};
use protocol::{EventName, ItemKind, ItemStatus, StartTurn, TurnRecord, TurnStarted};
use serde_json::Value;
use tokio::sync::mpsc;

/// How a followed turn ended, and its final agent message.
#[derive(Clone, Debug)]
pub struct TurnEnd {
    pub thread_id: String,
    pub turn: TurnRecord,
    pub answer: Option<String>,
}

/// A started turn whose end can be awaited.
pub struct Followed<'a> {
    runtime: &'a Runtime,
    frames: mpsc::Receiver<super::stream::Frame>,
    thread_id: String,
    pub started: TurnStarted,
}

impl Runtime {
    /// Starts a turn on the thread, following its events from just before.
    pub async fn start_followed_turn(
        &self,
        thread_id: &str,
        request: StartTurn,
    ) -> Result<Followed<'_>, RuntimeError> {
        let since_seq = self.thread(thread_id).await?.latest_seq;
        let cursor = Cursor {
            since_seq,
            replay_limit: None,
        };
        let frames = self.subscribe(thread_id, cursor).await?;
        let started = self.start_turn(thread_id, request).await?;
        Ok(Followed {
            runtime: self,
            frames,
            thread_id: thread_id.to_string(),
            started,
        })
    }

    /// Starts a turn and waits for its end.
    pub async fn run_turn_to_end(
        &self,
        thread_id: &str,
        request: StartTurn,
    ) -> Result<TurnEnd, RuntimeError> {
        self.start_followed_turn(thread_id, request)
            .await?
            .end()
            .await
    }
}

impl Followed<'_> {
    pub fn turn_id(&self) -> &str {
        &self.started.turn.id
    }

    /// Waits for `turn.completed` (or the stream's end, when the runtime
    /// shuts down), then reads the turn and its answer.
    pub async fn end(mut self) -> Result<TurnEnd, RuntimeError> {
        let turn_id = self.started.turn.id.clone();
        while let Some(frame) = self.frames.recv().await {
            if frame.event != EventName::TurnCompleted.as_str() {
                continue;
            }
            let envelope: Value = serde_json::from_str(&frame.data).unwrap_or_default();
            if envelope["turn_id"] == turn_id.as_str()
                || envelope["payload"]["turn"]["id"] == turn_id.as_str()
            {
                break;
            }
        }
        drop(self.frames);
        let detail = self.runtime.thread(&self.thread_id).await?;
        let answer = detail
            .items
            .iter()
            .rev()
            .find(|item| {
                item.turn_id == turn_id
                    && item.kind == ItemKind::AgentMessage
                    && item.status == ItemStatus::Completed
            })
            .and_then(|item| item.detail.clone());
        let turn = detail
            .turns
            .into_iter()
            .find(|turn| turn.id == turn_id)
            .unwrap_or(self.started.turn);
        Ok(TurnEnd {
            thread_id: self.thread_id,
            turn,
            answer,
        })
    }
}
