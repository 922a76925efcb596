//! The turn state machine: start (one active turn per thread), steer,
//! interrupt, compaction turns, completion, and recovery after a restart.

use super::{
    approvals::{Approvals, DEFAULT_TIMEOUT},
    client_tools::{self, ClientTools},
    engine::{ClientGate, Engine, Outcome, TurnContext, TurnInput, TurnSettings},
    ids, threads, turn_writer,
    user_input::UserInputs,
};
use crate::{
    clock,
    error::ApiError,
    store::{self, NewEvent, Store, StoreError, ThreadRow, WriteTx},
};
use futures::FutureExt;
use protocol::{
    CompactThread, ItemKind, StartTurn, SteerTurn, ThreadRecord, TurnItemRecord, TurnRecord,
    TurnStarted, TurnStatus, Usage,
};
use serde_json::json;
use std::{
    collections::HashMap,
    panic::AssertUnwindSafe,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};
use tokio::sync::{mpsc, watch};

/// After an interrupt request, how long an engine may take to stop before
/// the runtime ends the turn itself.
pub const INTERRUPT_GRACE: Duration = Duration::from_secs(10);
const PREVIEW_CHARS: usize = 140;
const SUMMARY_CHARS: usize = 280;
pub const RESTART_ERROR: &str = "Interrupted by process restart";

struct ActiveTurn {
    turn_id: String,
    steer: mpsc::Sender<String>,
    interrupt: watch::Sender<bool>,
}

pub struct TurnManager {
    store: Arc<Store>,
    engine: Arc<dyn Engine>,
    /// Thread id → its active turn. The claim is taken before anything is
    /// written, so two concurrent starts cannot both succeed.
    active: Mutex<HashMap<String, ActiveTurn>>,
    approvals: Arc<Approvals>,
    user_inputs: Arc<UserInputs>,
    client_tools: Arc<ClientTools>,
}

impl TurnManager {
    pub fn new(store: Arc<Store>, engine: Arc<dyn Engine>) -> Self {
        Self {
            approvals: Arc::new(Approvals::new(store.clone(), DEFAULT_TIMEOUT)),
            user_inputs: Arc::new(UserInputs::new(store.clone(), DEFAULT_TIMEOUT)),
            client_tools: Arc::new(ClientTools::new(store.clone(), DEFAULT_TIMEOUT)),
            store,
            engine,
            active: Mutex::new(HashMap::new()),
        }
    }

    /// How long approvals, questions and client tool calls wait for their
    /// client (300 s unless a test or `codewhale exec` says otherwise).
    pub fn with_wait_timeout(mut self, timeout: Duration) -> Self {
        self.approvals = Arc::new(Approvals::new(self.store.clone(), timeout));
        self.user_inputs = Arc::new(UserInputs::new(self.store.clone(), timeout));
        self.client_tools = Arc::new(ClientTools::new(self.store.clone(), timeout));
        self
    }

    /// The providers and models turns can use.
    pub fn providers(&self) -> Vec<protocol::ProviderModels> {
        self.engine.providers()
    }

    pub fn approvals(&self) -> &Arc<Approvals> {
        &self.approvals
    }

    pub fn user_inputs(&self) -> &Arc<UserInputs> {
        &self.user_inputs
    }

    pub fn client_tools(&self) -> &Arc<ClientTools> {
        &self.client_tools
    }

    /// The thread snapshot with what is pending in memory.
    pub async fn detail(&self, thread_id: &str) -> Result<protocol::ThreadDetail, ApiError> {
        let mut detail = threads::detail(&self.store, thread_id).await?;
        let id = &detail.thread.id;
        detail.pending_approvals = self.approvals.pending_for(id).await;
        detail.pending_user_inputs = self.user_inputs.pending_for(id).await;
        detail.pending_dynamic_tool_calls = self.client_tools.pending_for(id).await;
        Ok(detail)
    }

    pub async fn start(
        self: &Arc<Self>,
        thread_id: &str,
        request: StartTurn,
    ) -> Result<TurnStarted, ApiError> {
        let prompt = request.prompt.trim().to_string();
        if prompt.is_empty() {
            return Err(ApiError::bad_request("prompt must not be empty"));
        }
        let summary = request
            .input_summary
            .clone()
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| truncate(&prompt, SUMMARY_CHARS));
        self.begin(thread_id, TurnInput::Prompt(prompt), summary, Some(request))
            .await
    }

    pub async fn compact(
        self: &Arc<Self>,
        thread_id: &str,
        request: CompactThread,
    ) -> Result<TurnStarted, ApiError> {
        let summary = match &request.reason {
            Some(reason) if !reason.trim().is_empty() => {
                format!("Compact: {}", truncate(reason.trim(), SUMMARY_CHARS))
            }
            _ => "Compact the conversation".to_string(),
        };
        self.begin(
            thread_id,
            TurnInput::Compact {
                reason: request.reason,
            },
            summary,
            None,
        )
        .await
    }

    async fn begin(
        self: &Arc<Self>,
        thread_id: &str,
        input: TurnInput,
        input_summary: String,
        overrides: Option<StartTurn>,
    ) -> Result<TurnStarted, ApiError> {
        let thread_id = ids::parse(ids::THREAD, thread_id, "thread")?.to_string();
        let mut thread = self.thread(&thread_id).await?;
        let settings = settings(&thread, overrides.as_ref())?;
        let route = self
            .engine
            .check_ready(&ThreadRecord::from(thread.clone()), &settings)?;

        let turn_id = ids::new(ids::TURN);
        let (steer_tx, steers) = mpsc::channel(64);
        let (interrupt_tx, interrupt) = watch::channel(false);
        self.claim(
            &thread_id,
            ActiveTurn {
                turn_id: turn_id.clone(),
                steer: steer_tx,
                interrupt: interrupt_tx,
            },
        )?;

        let now = clock::now();
        let turn = TurnRecord {
            id: turn_id.clone(),
            thread_id: thread_id.clone(),
            status: TurnStatus::InProgress,
            input_summary,
            created_at: now.clone(),
            started_at: Some(now.clone()),
            ended_at: None,
            duration_ms: None,
            usage: Usage::default(),
            effective_provider: route.provider,
            effective_model: route.model.or_else(|| settings.model.clone()),
            effective_billing_surface: None,
            error: None,
            steer_count: 0,
        };
        let written = self.write_start(&mut thread, &turn, &input, &now).await;
        if let Err(error) = written {
            self.release(&thread_id, &turn_id);
            return Err(error.into());
        }
        let record = ThreadRecord::from(thread);
        self.spawn_run(
            record.clone(),
            turn.clone(),
            input,
            settings,
            steers,
            interrupt,
        );
        Ok(TurnStarted {
            thread: record,
            turn,
        })
    }

    async fn write_start(
        &self,
        thread: &mut ThreadRow,
        turn: &TurnRecord,
        input: &TurnInput,
        now: &str,
    ) -> Result<(), StoreError> {
        let mut tx = self.store.begin_write().await?;
        store::turns::upsert(tx.conn(), turn).await?;
        thread.latest_turn_id = Some(turn.id.clone());
        thread.updated_at = now.to_string();
        if let TurnInput::Prompt(prompt) = input {
            thread.preview = Some(truncate(prompt, PREVIEW_CHARS));
        }
        store::threads::update(tx.conn(), thread).await?;
        tx.append(NewEvent {
            thread_id: thread.id.clone(),
            turn_id: Some(turn.id.clone()),
            item_id: None,
            event: "turn.started",
            payload: json!({ "turn": turn }),
        })
        .await?;
        if let TurnInput::Prompt(prompt) = input {
            record_user_message(&mut tx, &thread.id, &turn.id, prompt).await?;
        }
        tx.commit().await
    }

    fn spawn_run(
        self: &Arc<Self>,
        thread: ThreadRecord,
        turn: TurnRecord,
        input: TurnInput,
        settings: TurnSettings,
        steers: mpsc::Receiver<String>,
        mut interrupt: watch::Receiver<bool>,
    ) {
        let manager = Arc::clone(self);
        let turn_id = turn.id.clone();
        tokio::spawn(async move {
            let started = Instant::now();
            let (items, writer) =
                turn_writer::spawn(manager.store.clone(), thread.id.clone(), turn.id.clone());
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
                        auto: if settings.mode == "yolo" {
                            Some(true)
                        } else if settings.auto_approve_from_thread {
                            None
                        } else {
                            Some(settings.auto_approve)
                        },
                    };
                    let context = TurnContext {
                        thread: thread.clone(),
                        turn_id: turn.id.clone(),
                        input,
                        settings,
                        history,
                        steers,
                        interrupt: interrupt.clone(),
                        items,
                        client,
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
        });
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
    async fn finish(
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
        let item_end = if status == TurnStatus::Failed {
            "failed"
        } else {
            "interrupted"
        };
        for mut item in store::turns::open_items(tx.conn(), &turn.id).await? {
            item.status = item_end.into();
            item.ended_at = Some(now.clone());
            store::turns::upsert_item(tx.conn(), &turn.thread_id, &item).await?;
            tx.append(NewEvent {
                thread_id: turn.thread_id.clone(),
                turn_id: Some(turn.id.clone()),
                item_id: Some(item.id.clone()),
                event: if item_end == "failed" {
                    "item.failed"
                } else {
                    "item.interrupted"
                },
                payload: json!({ "item": item }),
            })
            .await?;
        }
        store::turns::upsert(tx.conn(), &turn).await?;
        let mut payload = json!({ "turn": turn });
        if recovered {
            payload["recovered"] = json!(true);
        }
        tx.append(NewEvent {
            thread_id: turn.thread_id.clone(),
            turn_id: Some(turn.id.clone()),
            item_id: None,
            event: "turn.completed",
            payload,
        })
        .await?;
        tx.commit().await
    }

    pub async fn steer(
        &self,
        thread_id: &str,
        turn_id: &str,
        request: SteerTurn,
    ) -> Result<TurnRecord, ApiError> {
        let (thread_id, turn_id) = self.ids(thread_id, turn_id)?;
        let prompt = request.prompt.trim().to_string();
        if prompt.is_empty() {
            return Err(ApiError::bad_request("prompt must not be empty"));
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
        tx.append(NewEvent {
            thread_id: thread_id.to_string(),
            turn_id: Some(turn_id.to_string()),
            item_id: None,
            event: "turn.steered",
            payload: json!({ "turn_id": turn_id, "prompt": prompt, "steer_count": turn.steer_count }),
        })
        .await?;
        record_user_message(&mut tx, thread_id, turn_id, &prompt).await?;
        tx.commit().await?;
        // Recorded first, then delivered: the engine sees it in order.
        sender
            .send(prompt)
            .await
            .map_err(|_| ApiError::Conflict(format!("turn {turn_id} is not active")))?;
        Ok(turn)
    }

    pub async fn interrupt(&self, thread_id: &str, turn_id: &str) -> Result<TurnRecord, ApiError> {
        let (thread_id, turn_id) = self.ids(thread_id, turn_id)?;
        let signal = self
            .active_turn(thread_id, turn_id, |active| active.interrupt.clone())
            .await?;
        let mut conn = self
            .store
            .pool()
            .acquire()
            .await
            .map_err(StoreError::from)?;
        let turn = store::turns::get(&mut conn, turn_id)
            .await?
            .ok_or_else(|| turn_not_found(turn_id))?;
        drop(conn);
        if !*signal.borrow() {
            let mut tx = self.store.begin_write().await?;
            tx.append(NewEvent {
                thread_id: thread_id.to_string(),
                turn_id: Some(turn_id.to_string()),
                item_id: None,
                event: "turn.interrupt_requested",
                payload: json!({ "turn_id": turn_id }),
            })
            .await?;
            tx.commit().await?;
            signal.send_replace(true);
        }
        Ok(turn)
    }

    /// Ends every turn a previous process left queued or in progress:
    /// interrupted, with one turn.completed {recovered: true} each. Runs
    /// before the server accepts requests; a second run finds nothing.
    pub async fn recover(&self) -> Result<usize, StoreError> {
        let mut conn = self.store.pool().acquire().await?;
        let unfinished = store::turns::unfinished(&mut conn).await?;
        drop(conn);
        let count = unfinished.len();
        for turn in unfinished {
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
        Ok(count)
    }

    fn ids<'a>(
        &self,
        thread_id: &'a str,
        turn_id: &'a str,
    ) -> Result<(&'a str, &'a str), ApiError> {
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
    ) -> Result<T, ApiError> {
        if let Some(found) = self
            .lock()
            .get(thread_id)
            .filter(|active| active.turn_id == turn_id)
            .map(pick)
        {
            return Ok(found);
        }
        let mut conn = self
            .store
            .pool()
            .acquire()
            .await
            .map_err(StoreError::from)?;
        match store::turns::get(&mut conn, turn_id).await? {
            Some(turn) if turn.thread_id == thread_id => {
                Err(ApiError::Conflict(format!("turn {turn_id} is not active")))
            }
            _ => Err(turn_not_found(turn_id)),
        }
    }

    async fn history(&self, thread_id: &str) -> Result<Vec<TurnItemRecord>, StoreError> {
        let mut conn = self.store.pool().acquire().await?;
        store::turns::items_by_thread(&mut conn, thread_id).await
    }

    async fn thread(&self, thread_id: &str) -> Result<ThreadRow, ApiError> {
        let mut conn = self
            .store
            .pool()
            .acquire()
            .await
            .map_err(StoreError::from)?;
        store::threads::get(&mut conn, thread_id)
            .await?
            .ok_or_else(|| ApiError::NotFound(format!("thread {thread_id} not found")))
    }

    fn claim(&self, thread_id: &str, turn: ActiveTurn) -> Result<(), ApiError> {
        let mut active = self.lock();
        if active.contains_key(thread_id) {
            return Err(ApiError::Conflict(format!(
                "thread {thread_id} already has an active turn"
            )));
        }
        active.insert(thread_id.to_string(), turn);
        Ok(())
    }

    fn release(&self, thread_id: &str, turn_id: &str) {
        let mut active = self.lock();
        if active.get(thread_id).is_some_and(|a| a.turn_id == turn_id) {
            active.remove(thread_id);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, ActiveTurn>> {
        self.active.lock().unwrap_or_else(|p| p.into_inner())
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

fn settings(thread: &ThreadRow, overrides: Option<&StartTurn>) -> Result<TurnSettings, ApiError> {
    let thread_tools = ThreadRecord::from(thread.clone()).dynamic_tools;
    let mut settings = TurnSettings {
        model: thread.model.clone(),
        model_provider: thread.model_provider.clone(),
        mode: thread.mode.clone(),
        allow_shell: thread.allow_shell,
        trust_mode: thread.trust_mode,
        auto_approve: thread.auto_approve,
        auto_approve_from_thread: true,
        dynamic_tools: thread_tools,
    };
    if let Some(o) = overrides {
        if let Some(tools) = &o.dynamic_tools {
            client_tools::validate(tools)?;
            settings.dynamic_tools = client_tools::merge(&settings.dynamic_tools, tools);
            client_tools::validate(&settings.dynamic_tools)?;
        }
        if let Some(model) = &o.model {
            if model.trim().is_empty() {
                return Err(ApiError::bad_request("model must not be empty"));
            }
            settings.model = Some(model.trim().to_string());
        }
        if let Some(provider) = &o.model_provider {
            if provider.trim().is_empty() {
                return Err(ApiError::bad_request("model_provider must not be empty"));
            }
            settings.model_provider = Some(provider.trim().to_string());
        }
        if let Some(mode) = &o.mode {
            if !threads::MODES.contains(&mode.as_str()) {
                return Err(ApiError::bad_request(format!(
                    "mode must be one of {}",
                    threads::MODES.join(", ")
                )));
            }
            settings.mode = mode.clone();
        }
        settings.allow_shell = o.allow_shell.unwrap_or(settings.allow_shell);
        settings.trust_mode = o.trust_mode.unwrap_or(settings.trust_mode);
        settings.auto_approve = o.auto_approve.unwrap_or(settings.auto_approve);
        settings.auto_approve_from_thread = o.auto_approve.is_none();
    }
    Ok(settings)
}

/// A completed user_message item (the prompt of a turn, or a steer) with
/// its item.started and item.completed events.
async fn record_user_message(
    tx: &mut WriteTx<'_>,
    thread_id: &str,
    turn_id: &str,
    prompt: &str,
) -> Result<(), StoreError> {
    let now = clock::now();
    let item = TurnItemRecord {
        id: ids::new(ids::ITEM),
        turn_id: turn_id.to_string(),
        kind: ItemKind::UserMessage,
        status: "completed".into(),
        summary: truncate(prompt, SUMMARY_CHARS),
        detail: Some(prompt.to_string()),
        metadata: json!({}),
        started_at: Some(now.clone()),
        ended_at: Some(now),
    };
    store::turns::upsert_item(tx.conn(), thread_id, &item).await?;
    for event in ["item.started", "item.completed"] {
        tx.append(NewEvent {
            thread_id: thread_id.to_string(),
            turn_id: Some(turn_id.to_string()),
            item_id: Some(item.id.clone()),
            event,
            payload: json!({ "item": item }),
        })
        .await?;
    }
    Ok(())
}

/// Terminal receipts for the requests of `turn` that a previous process
/// left without one: client tool calls are canceled
/// `{reason: "process_restart"}`, questions canceled, approvals denied.
async fn unsettled_requests(
    conn: &mut sqlx::SqliteConnection,
    turn: &TurnRecord,
) -> Result<Vec<NewEvent>, StoreError> {
    let events = store::events::of_turn(conn, &turn.thread_id, &turn.id).await?;
    let settled: std::collections::HashSet<String> = events
        .iter()
        .filter(|e| !e.event.ends_with(".required") && e.event != "tool_call.requested")
        .filter_map(|e| request_id(&e.payload))
        .collect();
    let mut receipts = Vec::new();
    for requested in &events {
        let payload: serde_json::Value =
            serde_json::from_str(&requested.payload).unwrap_or_default();
        let Some(id) = request_id(&requested.payload).filter(|id| !settled.contains(id)) else {
            continue;
        };
        let (name, body) = match requested.event.as_str() {
            "tool_call.requested" => (
                "tool_call.canceled",
                client_tools::canceled_by_restart(&payload),
            ),
            "user_input.required" => (
                "user_input.canceled",
                json!({ "id": id, "input_id": id, "reason": "process_restart", "terminal": true, "recovered": true }),
            ),
            "approval.required" => (
                "approval.decided",
                json!({ "approval_id": id, "decision": "deny", "canceled": true, "terminal": true, "recovered": true }),
            ),
            _ => continue,
        };
        receipts.push(NewEvent {
            thread_id: turn.thread_id.clone(),
            turn_id: Some(turn.id.clone()),
            item_id: None,
            event: name,
            payload: body,
        });
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

fn turn_not_found(turn_id: &str) -> ApiError {
    ApiError::NotFound(format!("turn {turn_id} not found"))
}

fn truncate(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
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
