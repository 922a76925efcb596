//! Steering and interrupting the active turn of a thread.

use super::{start::record_user_message, ActiveTurn, TurnManager};
use crate::{
    runtime::error::RuntimeError,
    runtime::ids,
    store::{self, NewEvent},
};
use protocol::{
    EventPayload, SteerTurn, TurnInterruptRequestedPayload, TurnRecord, TurnSteeredPayload,
};

impl TurnManager {
    pub async fn steer(
        &self,
        thread_id: &str,
        turn_id: &str,
        request: SteerTurn,
    ) -> Result<TurnRecord, RuntimeError> {
        let (thread_id, turn_id) = self.ids(thread_id, turn_id)?;
        let prompt = request.prompt.trim().to_string();
        if prompt.is_empty() {
            return Err(RuntimeError::invalid("prompt must not be empty"));
        }
        let sender = self
            .active_turn(thread_id, turn_id, |active| active.steer.clone())
            .await?;
        let mut tx = self.store.begin_write().await?;
        let mut turn = store::turns::get(tx.conn(), turn_id)
            .await?
            .ok_or_else(|| turn_not_found(turn_id))?;
        turn.steer_count += 1;
        store::turns::upsert(tx.conn(), &turn).await?;
        tx.append(NewEvent::turn(
            thread_id,
            turn_id,
            EventPayload::TurnSteered(TurnSteeredPayload {
                turn_id: turn_id.to_string(),
                prompt: prompt.clone(),
                steer_count: turn.steer_count,
            }),
        ))
        .await?;
        record_user_message(&mut tx, thread_id, turn_id, &prompt).await?;
        tx.commit().await?;
        // Recorded first, then delivered: the engine sees it in order.
        sender
            .send(prompt)
            .await
            .map_err(|_| RuntimeError::Conflict(format!("turn {turn_id} is not active")))?;
        Ok(turn)
    }

    pub async fn interrupt(
        &self,
        thread_id: &str,
        turn_id: &str,
    ) -> Result<TurnRecord, RuntimeError> {
        let (thread_id, turn_id) = self.ids(thread_id, turn_id)?;
        let signal = self
            .active_turn(thread_id, turn_id, |active| active.interrupt.clone())
            .await?;
        let mut conn = self.store.conn().await?;
        let turn = store::turns::get(&mut conn, turn_id)
            .await?
            .ok_or_else(|| turn_not_found(turn_id))?;
        drop(conn);
        if !*signal.borrow() {
            let mut tx = self.store.begin_write().await?;
            tx.append(NewEvent::turn(
                thread_id,
                turn_id,
                EventPayload::TurnInterruptRequested(TurnInterruptRequestedPayload {
                    turn_id: turn_id.to_string(),
                }),
            ))
            .await?;
            tx.commit().await?;
            signal.send_replace(true);
        }
        Ok(turn)
    }

    fn ids<'a>(
        &self,
        thread_id: &'a str,
        turn_id: &'a str,
    ) -> Result<(&'a str, &'a str), RuntimeError> {
        Ok((
            ids::parse(ids::THREAD, thread_id, "thread")?,
            ids::parse(ids::TURN, turn_id, "turn")?,
        ))
    }

    /// The active turn's channel, or 404 (unknown) / 409 (not active).
    async fn active_turn<T>(
        &self,
        thread_id: &str,
        turn_id: &str,
        pick: impl FnOnce(&ActiveTurn) -> T,
    ) -> Result<T, RuntimeError> {
        if let Some(found) = self
            .lock()
            .get(thread_id)
            .filter(|active| active.turn_id == turn_id)
            .map(pick)
        {
            return Ok(found);
        }
        let mut conn = self.store.conn().await?;
        match store::turns::get(&mut conn, turn_id).await? {
            Some(turn) if turn.thread_id == thread_id => Err(RuntimeError::Conflict(format!(
                "turn {turn_id} is not active"
            ))),
            _ => Err(turn_not_found(turn_id)),
        }
    }
}

fn turn_not_found(turn_id: &str) -> RuntimeError {
    RuntimeError::NotFound(format!("turn {turn_id} not found"))
}
