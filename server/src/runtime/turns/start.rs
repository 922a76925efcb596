//! Starting a turn: a prompt or a compaction request becomes a claimed
//! active turn, its settings (thread settings plus overrides), and the
//! first records (turn.started, the user's message), then the run.

use super::{ActiveTurn, TurnManager};
use crate::{
    clock,
    runtime::error::RuntimeError,
    runtime::{
        agent_runs::{self, SubAgentLimits},
        client_tools,
        engine::{TurnInput, TurnSettings},
        hosted_tools::Hosted,
        ids, instructions, threads,
    },
    store::{self, agent_runs::AgentRunRow, NewEvent, StoreError, ThreadRow, WriteTx},
};
use protocol::{
    CompactThread, EventPayload, ItemKind, ItemPayload, ItemStatus, Mode, StartTurn, ThreadRecord,
    ThreadUpdatedPayload, TurnItemRecord, TurnPayload, TurnRecord, TurnStarted, TurnStatus, Usage,
};
use serde_json::json;
use std::sync::Arc;
use tokio::sync::{mpsc, watch};

const PREVIEW_CHARS: usize = 140;

/// How a turn is started, beyond its input: per-turn overrides, an item
/// recorded with the prompt, a client's tools, the sub-agent run it is.
#[derive(Default)]
struct Start {
    overrides: Option<StartTurn>,
    opening: Option<Opening>,
    hosted: Hosted,
    run: Option<(AgentRunRow, SubAgentLimits)>,
}
const SUMMARY_CHARS: usize = 280;

impl TurnManager {
    pub async fn start(
        self: &Arc<Self>,
        thread_id: &str,
        request: StartTurn,
    ) -> Result<TurnStarted, RuntimeError> {
        self.prompted(thread_id, request, None, Hosted::default(), None)
            .await
    }

    /// `start` on a sub-agent's thread, the run recorded (and the limits
    /// checked) in the transaction that starts the turn; the turn's id.
    pub(in crate::runtime) async fn start_child(
        self: &Arc<Self>,
        thread_id: &str,
        request: StartTurn,
        run: AgentRunRow,
        limits: SubAgentLimits,
    ) -> Result<String, RuntimeError> {
        let started = self
            .prompted(
                thread_id,
                request,
                None,
                Hosted::default(),
                Some((run, limits)),
            )
            .await?;
        Ok(started.turn.id)
    }

    /// `start`, the turn using tools its client runs (an editor's, MCP
    /// servers'): they belong to this turn only, never to another
    /// client's turn on the same thread.
    pub async fn start_hosted(
        self: &Arc<Self>,
        thread_id: &str,
        request: StartTurn,
        hosted: Hosted,
    ) -> Result<TurnStarted, RuntimeError> {
        self.prompted(thread_id, request, None, hosted, None).await
    }

    /// `start`, with `opening` recorded right after the prompt in the same
    /// transaction (a review action opens the turn that applies it).
    pub async fn start_opened(
        self: &Arc<Self>,
        thread_id: &str,
        request: StartTurn,
        opening: Opening,
    ) -> Result<TurnStarted, RuntimeError> {
        self.prompted(thread_id, request, Some(opening), Hosted::default(), None)
            .await
    }

    async fn prompted(
        self: &Arc<Self>,
        thread_id: &str,
        request: StartTurn,
        opening: Option<Opening>,
        hosted: Hosted,
        run: Option<(AgentRunRow, SubAgentLimits)>,
    ) -> Result<TurnStarted, RuntimeError> {
        let prompt = request.prompt.trim().to_string();
        if prompt.is_empty() {
            return Err(RuntimeError::invalid("prompt must not be empty"));
        }
        let summary = request
            .input_summary
            .clone()
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| truncate(&prompt, SUMMARY_CHARS));
        let input = TurnInput::Prompt(prompt);
        let start = Start {
            overrides: Some(request),
            opening,
            hosted,
            run,
        };
        self.begin(thread_id, input, summary, start).await
    }

    /// Whether `request` could start a turn now (the checks `start` makes
    /// before claiming the thread), for operations that must not change
    /// anything when the turn they end with would be refused.
    pub async fn check_start(
        &self,
        thread_id: &str,
        request: &StartTurn,
    ) -> Result<(), RuntimeError> {
        if request.prompt.trim().is_empty() {
            return Err(RuntimeError::invalid("prompt must not be empty"));
        }
        let thread = self.thread(thread_id).await?;
        let settings = settings(&thread, Some(request))?;
        self.engine
            .check_ready(&ThreadRecord::from(thread), &settings)
            .map(drop)
    }

    pub async fn compact(
        self: &Arc<Self>,
        thread_id: &str,
        request: CompactThread,
    ) -> Result<TurnStarted, RuntimeError> {
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
            Start::default(),
        )
        .await
    }

    async fn begin(
        self: &Arc<Self>,
        thread_id: &str,
        input: TurnInput,
        input_summary: String,
        start: Start,
    ) -> Result<TurnStarted, RuntimeError> {
        let Start {
            overrides,
            opening,
            hosted,
            run,
        } = start;
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

        // Read before the start is written: the turn records what it got.
        let instructions = instructions::load(&self.home, thread.workspace.as_deref()).await;
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
            undone_at: None,
            instructions: instructions.files.clone(),
        };
        let opening = opening.map(|opening| opening.item(&turn_id, &now));
        let written = self
            .write_start(&mut thread, &turn, &input, (opening.as_ref(), run), &now)
            .await;
        if let Err(error) = written {
            self.release(&thread_id, &turn_id);
            return Err(error);
        }
        let record = ThreadRecord::from(thread);
        self.spawn_run(
            record.clone(),
            turn.clone(),
            input,
            (settings, instructions),
            (steers, interrupt),
            hosted,
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
        (opening, run): (
            Option<&TurnItemRecord>,
            Option<(AgentRunRow, SubAgentLimits)>,
        ),
        now: &str,
    ) -> Result<(), RuntimeError> {
        let mut tx = self.store.begin_write().await?;
        // The in-memory claim covers this process; another process sharing
        // the store may run a turn on this thread too (checked under the
        // write lock, so two starts cannot both pass).
        if store::turns::active_in(tx.conn(), &thread.id).await? {
            return Err(RuntimeError::Conflict(format!(
                "thread {} already has an active turn (in another codewhale process)",
                thread.id
            )));
        }
        // Re-read under the write lock: a rename since `begin` read the row
        // must survive this update (and stops a prompt title).
        if let Some(current) = store::threads::get(tx.conn(), &thread.id).await? {
            *thread = current;
        }
        store::turns::upsert(tx.conn(), turn).await?;
        let first_turn = thread.latest_turn_id.is_none();
        thread.latest_turn_id = Some(turn.id.clone());
        thread.updated_at = now.to_string();
        let mut titled = false;
        if let TurnInput::Prompt(prompt) = input {
            thread.preview = Some(truncate(prompt, PREVIEW_CHARS));
            if first_turn && thread.title.is_none() {
                thread.title = threads::title_from_prompt(prompt);
                titled = thread.title.is_some();
            }
        }
        store::threads::update(tx.conn(), thread).await?;
        tx.append(NewEvent::turn(
            &thread.id,
            &turn.id,
            EventPayload::TurnStarted(TurnPayload {
                turn: turn.clone(),
                recovered: None,
            }),
        ))
        .await?;
        if let TurnInput::Prompt(prompt) = input {
            record_user_message(&mut tx, &thread.id, &turn.id, prompt).await?;
        }
        if let Some(item) = opening {
            record_completed(&mut tx, &thread.id, item).await?;
        }
        if let Some((mut run, limits)) = run {
            run.turn_id = turn.id.clone();
            agent_runs::settle::record_spawn(&mut tx, &run, limits).await?;
        }
        // After the prompt's events, so a stream reads turn, prompt, title.
        if titled {
            tx.append(NewEvent::thread(
                &thread.id,
                EventPayload::ThreadUpdated(ThreadUpdatedPayload {
                    thread: ThreadRecord::from(thread.clone()),
                    changed: vec!["title".to_string()],
                }),
            ))
            .await?;
        }
        Ok(tx.commit().await?)
    }

    /// The model a turn started now with the thread's own settings would
    /// use, as `begin` decides it; `None` while the engine would refuse it.
    pub(super) fn effective_model(&self, thread: &ThreadRecord) -> Option<String> {
        let settings = thread_settings(thread);
        let route = self.engine.check_ready(thread, &settings).ok()?;
        route.model.or(settings.model)
    }

    async fn thread(&self, thread_id: &str) -> Result<ThreadRow, RuntimeError> {
        let mut conn = self.store.conn().await?;
        store::threads::get(&mut conn, thread_id)
            .await?
            .ok_or_else(|| RuntimeError::NotFound(format!("thread {thread_id} not found")))
    }
}

fn settings(
    thread: &ThreadRow,
    overrides: Option<&StartTurn>,
) -> Result<TurnSettings, RuntimeError> {
    let mut settings = thread_settings(&ThreadRecord::from(thread.clone()));
    if let Some(o) = overrides {
        if let Some(tools) = &o.dynamic_tools {
            client_tools::validate(tools)?;
            settings.dynamic_tools = client_tools::merge(&settings.dynamic_tools, tools);
            // Each list is valid alone; together they may be too many.
            if settings.dynamic_tools.len() > client_tools::MAX_TOOLS {
                return Err(RuntimeError::Conflict(format!(
                    "the thread's and this turn's dynamic tools together exceed {}",
                    client_tools::MAX_TOOLS
                )));
            }
        }
        if let Some(model) = &o.model {
            if model.trim().is_empty() {
                return Err(RuntimeError::invalid("model must not be empty"));
            }
            settings.model = Some(model.trim().to_string());
        }
        if let Some(provider) = &o.model_provider {
            if provider.trim().is_empty() {
                return Err(RuntimeError::invalid("model_provider must not be empty"));
            }
            settings.model_provider = Some(provider.trim().to_string());
        }
        if let Some(mode) = &o.mode {
            settings.mode = Mode::parse(mode).map_err(RuntimeError::Invalid)?;
        }
        settings.allow_shell = o.allow_shell.unwrap_or(settings.allow_shell);
        settings.trust_mode = o.trust_mode.unwrap_or(settings.trust_mode);
        settings.auto_approve = o.auto_approve.unwrap_or(settings.auto_approve);
        settings.auto_approve_from_thread = o.auto_approve.is_none();
    }
    Ok(settings)
}

/// A turn's settings before any per-turn override: the thread's.
fn thread_settings(thread: &ThreadRecord) -> TurnSettings {
    TurnSettings {
        model: thread.model.clone(),
        model_provider: thread.model_provider.clone(),
        mode: thread.mode,
        allow_shell: thread.allow_shell,
        trust_mode: thread.trust_mode,
        auto_approve: thread.auto_approve,
        auto_approve_from_thread: true,
        dynamic_tools: thread.dynamic_tools.clone(),
    }
}

/// An item recorded as a turn starts, after its prompt. `metadata` gets
/// the new turn's id.
pub struct Opening {
    pub id: String,
    pub kind: ItemKind,
    pub summary: String,
    pub metadata: Box<dyn FnOnce(&str) -> serde_json::Value + Send>,
}

impl Opening {
    fn item(self, turn_id: &str, now: &str) -> TurnItemRecord {
        TurnItemRecord {
            id: self.id,
            turn_id: turn_id.to_string(),
            kind: self.kind,
            status: ItemStatus::Completed,
            summary: self.summary,
            detail: None,
            metadata: (self.metadata)(turn_id),
            started_at: Some(now.to_string()),
            ended_at: Some(now.to_string()),
        }
    }
}

/// A completed user_message item (the prompt of a turn, or a steer) with
/// its item.started and item.completed events.
pub(super) async fn record_user_message(
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
        status: ItemStatus::Completed,
        summary: truncate(prompt, SUMMARY_CHARS),
        detail: Some(prompt.to_string()),
        metadata: json!({}),
        started_at: Some(now.clone()),
        ended_at: Some(now),
    };
    record_completed(tx, thread_id, &item).await
}

/// A completed item, with its item.started and item.completed events.
async fn record_completed(
    tx: &mut WriteTx<'_>,
    thread_id: &str,
    item: &TurnItemRecord,
) -> Result<(), StoreError> {
    let turn_id = &item.turn_id;
    store::turns::upsert_item(tx.conn(), thread_id, item).await?;
    let started = EventPayload::ItemStarted(ItemPayload { item: item.clone() });
    let completed = EventPayload::ItemCompleted(ItemPayload { item: item.clone() });
    for payload in [started, completed] {
        tx.append(NewEvent::item(thread_id, turn_id, &item.id, payload))
            .await?;
    }
    Ok(())
}

fn truncate(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}
