//! User input: the model asks the user questions (`request_user_input`)
//! and waits for the answers. The question is durable
//! (`user_input.required`); the answers never are. `user_input.answered`
//! is a receipt without content, committed before the answers reach the
//! engine; a turn that ends first cancels with `user_input.canceled`.

use super::{
    ids,
    pending::{detached, turn_event as event, Ask, PendingSet, Waited},
};
use crate::{
    runtime::error::RuntimeError,
    store::{Store, StoreError},
};
use protocol::{
    Answer, AnswerUserInput, EventPayload, UserInputAnswered, UserInputAnsweredPayload,
    UserInputCanceledPayload, UserInputRequest, UserInputRequiredPayload,
};
use serde_json::Value;
use std::{collections::HashSet, sync::Arc, time::Duration};

const MAX_QUESTIONS: usize = 20;
const MAX_OPTIONS: usize = 20;
const MAX_ANSWER_BYTES: usize = 64 * 1024;

pub struct UserInputs {
    pending: PendingSet<Vec<Answer>>,
    timeout: Duration,
}

/// How a question ended, as the engine sees it.
#[derive(Debug)]
pub enum Reply {
    Answered(Vec<Answer>),
    TimedOut,
    Canceled,
}

impl UserInputs {
    pub fn new(store: Arc<Store>, timeout: Duration) -> Self {
        Self {
            pending: PendingSet::new(store),
            timeout,
        }
    }

    /// Asks and waits. The request must be valid (see [`validate`]).
    pub async fn ask(
        &self,
        thread_id: &str,
        turn_id: &str,
        request: UserInputRequest,
    ) -> Result<Reply, StoreError> {
        let input_id = ids::new(ids::USER_INPUT);
        let ask = Ask {
            id: input_id.clone(),
            thread_id: thread_id.to_string(),
            turn_id: turn_id.to_string(),
            announce: EventPayload::UserInputRequired(UserInputRequiredPayload {
                id: input_id.clone(),
                input_id: input_id.clone(),
                thread_id: thread_id.to_string(),
                turn_id: turn_id.to_string(),
                request,
            }),
        };
        let timeout_secs = self.timeout.as_secs();
        let waited = self
            .pending
            .ask(ask, None, self.timeout, |_| {
                vec![event(
                    thread_id,
                    turn_id,
                    canceled(&input_id, "timeout", |p| {
                        p.timeout_secs = Some(timeout_secs)
                    }),
                )]
            })
            .await?;
        Ok(match waited {
            Some(Waited::Answered(answers)) => Reply::Answered(answers),
            Some(Waited::TimedOut) => Reply::TimedOut,
            Some(Waited::Canceled) | None => Reply::Canceled,
        })
    }

    /// `POST /v1/user-input/{thread_id}/{input_id}`: only the exact pending
    /// pair is accepted (404 otherwise, and nothing reaches the engine).
    pub async fn answer(
        self: &Arc<Self>,
        thread_id: &str,
        input_id: &str,
        body: AnswerUserInput,
    ) -> Result<UserInputAnswered, RuntimeError> {
        let inputs = Arc::clone(self);
        let (thread_id, input_id) = (thread_id.to_string(), input_id.to_string());
        detached(async move { inputs.settle(&thread_id, &input_id, body.answers).await }).await
    }

    async fn settle(
        &self,
        thread_id: &str,
        input_id: &str,
        answers: Vec<Answer>,
    ) -> Result<UserInputAnswered, RuntimeError> {
        let not_found = || RuntimeError::NotFound(format!("no pending user input {input_id}"));
        let claim = self.pending.claim(input_id).await.ok_or_else(not_found)?;
        let waiting = claim.waiting();
        if waiting.thread_id != thread_id {
            return Err(not_found());
        }
        let request: UserInputRequest = serde_json::from_value(waiting.view["request"].clone())
            .map_err(|e| crate::store::StoreError::Corrupt(e.to_string()))?;
        check_answers(&request, &answers)?;
        let turn_id = waiting.turn_id.clone();
        self.pending
            .commit(vec![event(
                thread_id,
                &turn_id,
                EventPayload::UserInputAnswered(UserInputAnsweredPayload {
                    id: input_id.to_string(),
                    input_id: input_id.to_string(),
                }),
            )])
            .await?;
        let delivered = claim.settle(Some(answers));
        Ok(UserInputAnswered {
            ok: true,
            input_id: input_id.to_string(),
            delivered,
        })
    }

    /// The user declined to answer (an editor's form): the question ends
    /// `user_input.canceled` with reason `declined` and the turn goes on
    /// without answers.
    pub async fn decline(
        self: &Arc<Self>,
        thread_id: &str,
        input_id: &str,
    ) -> Result<(), RuntimeError> {
        let inputs = Arc::clone(self);
        let (thread_id, input_id) = (thread_id.to_string(), input_id.to_string());
        detached(async move {
            let not_found = || RuntimeError::NotFound(format!("no pending user input {input_id}"));
            let claim = inputs
                .pending
                .claim(&input_id)
                .await
                .ok_or_else(not_found)?;
            if claim.waiting().thread_id != thread_id {
                return Err(not_found());
            }
            let turn_id = claim.waiting().turn_id.clone();
            inputs
                .pending
                .commit(vec![event(
                    &thread_id,
                    &turn_id,
                    canceled(&input_id, "declined", |_| {}),
                )])
                .await?;
            claim.settle(None);
            Ok(())
        })
        .await
    }

    pub async fn pending_for(&self, thread_id: &str) -> Vec<Value> {
        self.pending.views_for(thread_id).await
    }

    /// Cancels a finished turn's questions (receipt first).
    pub async fn cancel_turn(&self, turn_id: &str) -> Result<usize, StoreError> {
        self.pending
            .cancel_turn(turn_id, |id, waiting| {
                vec![event(
                    &waiting.thread_id,
                    &waiting.turn_id,
                    canceled(id, "turn_ended", |p| p.terminal = Some(true)),
                )]
            })
            .await
    }
}

/// `user_input.canceled` for `reason`, with `extra` filled in.
pub(crate) fn canceled(
    input_id: &str,
    reason: &str,
    extra: impl FnOnce(&mut UserInputCanceledPayload),
) -> EventPayload {
    let mut payload = UserInputCanceledPayload {
        id: input_id.to_string(),
        input_id: input_id.to_string(),
        reason: reason.to_string(),
        timeout_secs: None,
        terminal: None,
        recovered: None,
    };
    extra(&mut payload);
    EventPayload::UserInputCanceled(payload)
}

/// Checks what the model asked: ids present and unique, text present,
/// sizes bounded, and every question answerable.
pub fn validate(request: &UserInputRequest) -> Result<(), String> {
    if request.questions.is_empty() || request.questions.len() > MAX_QUESTIONS {
        return Err(format!("ask between 1 and {MAX_QUESTIONS} questions"));
    }
    let mut seen = HashSet::new();
    for q in &request.questions {
        if q.id.trim().is_empty() || !seen.insert(q.id.as_str()) {
            return Err("every question needs a unique, non-empty id".into());
        }
        if q.question.trim().is_empty() {
            return Err(format!("question {:?} has no text", q.id));
        }
        if q.options.len() > MAX_OPTIONS {
            return Err(format!(
                "question {:?} has more than {MAX_OPTIONS} options",
                q.id
            ));
        }
        if q.options.iter().any(|o| o.label.trim().is_empty()) {
            return Err(format!("question {:?} has an option without a label", q.id));
        }
        if q.options.is_empty() && !q.allow_free_text {
            return Err(format!(
                "question {:?} has no options and does not allow free text",
                q.id
            ));
        }
    }
    Ok(())
}

/// Every question answered exactly as it allows: a known option or free
/// text when allowed, one answer unless multi-select. Answers that do not
/// fit the questions asked conflict with the pending request (409: the same
/// body may be right for another); answers larger than their limit are 413.
fn check_answers(request: &UserInputRequest, answers: &[Answer]) -> Result<(), RuntimeError> {
    let bad = |message: String| Err(RuntimeError::Conflict(message));
    let size: usize = answers.iter().map(|a| a.value.len() + a.label.len()).sum();
    if size > MAX_ANSWER_BYTES {
        return Err(RuntimeError::TooLarge(format!(
            "answers exceed {MAX_ANSWER_BYTES} bytes"
        )));
    }
    if let Some(unknown) = answers
        .iter()
        .find(|a| !request.questions.iter().any(|q| q.id == a.id))
    {
        return bad(format!("no question with id {:?}", unknown.id));
    }
    for q in &request.questions {
        let given: Vec<&Answer> = answers.iter().filter(|a| a.id == q.id).collect();
        if given.is_empty() || given.iter().all(|a| a.value.trim().is_empty()) {
            return bad(format!("question {:?} is not answered", q.id));
        }
        if given.len() > 1 && !q.multi_select {
            return bad(format!("question {:?} takes one answer", q.id));
        }
        let is_option = |a: &&Answer| q.options.iter().any(|o| o.label == a.value);
        if !q.allow_free_text && !given.iter().all(is_option) {
            return bad(format!("question {:?} takes one of its options", q.id));
        }
    }
    Ok(())
}

/// The answers as the model reads them (never stored).
pub fn answers_text(request: &UserInputRequest, answers: &[Answer]) -> String {
    request
        .questions
        .iter()
        .map(|q| {
            let values: Vec<&str> = answers
                .iter()
                .filter(|a| a.id == q.id)
                .map(|a| a.value.as_str())
                .collect();
            format!("{}: {}", q.question, values.join(", "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}
