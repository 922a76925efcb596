//! Sessions (`/v1/sessions`): conversations kept as files (`files.rs`). A
//! thread is saved as one — its user and agent messages, in order, from
//! the turns the model still sees, and its system prompt — and a session
//! comes back as a new thread whose finished turns carry those messages,
//! so the next turn continues the conversation.

pub mod files;

use super::{error::RuntimeError, ids, threads, Runtime};
use crate::{clock, store};
use files::{FileError, SessionFiles};
use protocol::{
    CreateThread, ItemKind, ItemStatus, ListSessions, PersistSession, SessionContent,
    SessionDetail, SessionMessage, SessionMetadata, Sessions, ThreadRecord, TurnItemRecord,
    TurnRecord, TurnStatus, Usage,
};
use serde_json::json;

pub const DEFAULT_LIMIT: u64 = 50;
pub const MAX_LIMIT: u64 = 500;
/// Characters of a prompt a turn's summary keeps.
const SUMMARY_CHARS: usize = 280;

fn file_error(id: &str, error: FileError) -> RuntimeError {
    match error {
        FileError::NotFound => RuntimeError::NotFound(format!("no session {id}")),
        FileError::Unreadable(why) => {
            RuntimeError::Conflict(format!("session {id} cannot be read: {why}"))
        }
        FileError::Io(error) => RuntimeError::Internal(format!("session {id}: {error}")),
    }
}

fn checked(id: &str) -> Result<&str, RuntimeError> {
    if files::valid_id(id) {
        Ok(id)
    } else {
        Err(RuntimeError::NotFound(format!("no session {id}")))
    }
}

/// Unix seconds of an RFC 3339 time (0 when it does not parse).
fn unix(rfc3339: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(rfc3339).map_or(0, |t| t.timestamp())
}

fn text_of(message: &SessionMessage) -> String {
    message
        .content
        .iter()
        .filter(|block| block.kind == "text")
        .map(|block| block.text.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn summary(text: &str) -> String {
    match text.char_indices().nth(SUMMARY_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// At most `max` characters, on one line.
fn clip(text: &str, max: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(max) {
        Some((cut, _)) => line[..cut].to_string(),
        None => line,
    }
}

impl Runtime {
    fn session_files(&self) -> SessionFiles {
        SessionFiles::new(&self.home)
    }

    async fn on_files<T: Send + 'static>(
        &self,
        id: &str,
        work: impl FnOnce(SessionFiles) -> Result<T, FileError> + Send + 'static,
    ) -> Result<T, RuntimeError> {
        let files = self.session_files();
        let id = id.to_string();
        tokio::task::spawn_blocking(move || work(files))
            .await
            .map_err(|e| RuntimeError::Internal(e.to_string()))?
            .map_err(|e| file_error(&id, e))
    }

    pub async fn list_sessions(&self, query: ListSessions) -> Result<Sessions, RuntimeError> {
        let limit = query.limit.unwrap_or(DEFAULT_LIMIT);
        if !(1..=MAX_LIMIT).contains(&limit) {
            return Err(RuntimeError::Invalid(format!(
                "limit must be between 1 and {MAX_LIMIT}"
            )));
        }
        let needle = query.search.map(|s| s.to_lowercase());
        let mut sessions = self.on_files("sessions", |files| files.list()).await?;
        if let Some(needle) = needle.filter(|n| !n.is_empty()) {
            sessions.retain(|s| {
                [&s.title, &s.name, &s.id]
                    .iter()
                    .any(|field| field.to_lowercase().contains(&needle))
            });
        }
        sessions.truncate(limit as usize);
        Ok(Sessions { sessions })
    }

    pub async fn session(&self, id: &str) -> Result<SessionDetail, RuntimeError> {
        let id = checked(id)?.to_string();
        let read = id.clone();
        self.on_files(&id, move |files| files.read(&read)).await
    }

    pub async fn delete_session(&self, id: &str) -> Result<(), RuntimeError> {
        let id = checked(id)?.to_string();
        let gone = id.clone();
        self.on_files(&id, move |files| files.delete(&gone)).await
    }

    /// Saves the thread's conversation as a new session.
    pub async fn persist_session(
        &self,
        thread_id: &str,
        request: PersistSession,
    ) -> Result<SessionMetadata, RuntimeError> {
        let detail = self.thread(thread_id).await?;
        let thread = detail.thread;
        let undone: std::collections::HashSet<&str> = detail
            .turns
            .iter()
            .filter(|t| t.undone_at.is_some())
            .map(|t| t.id.as_str())
            .collect();
        let messages: Vec<SessionMessage> = detail
            .items
            .iter()
            .filter(|item| !undone.contains(item.turn_id.as_str()))
            .filter(|item| item.status == ItemStatus::Completed)
            .filter_map(|item| {
                let role = match item.kind {
                    ItemKind::UserMessage => "user",
                    ItemKind::AgentMessage => "assistant",
                    _ => return None,
                };
                let text = item.detail.clone().filter(|t| !t.is_empty())?;
                Some(SessionMessage {
                    role: role.into(),
                    content: vec![SessionContent {
                        kind: "text".into(),
                        text,
                    }],
                })
            })
            .collect();
        if messages.is_empty() {
            return Err(RuntimeError::Conflict(format!(
                "thread {} has no messages to save",
                thread.id
            )));
        }
        let title = thread
            .title
            .clone()
            .or_else(|| threads::title_from_prompt(&text_of(&messages[0])))
            .unwrap_or_else(|| "Untitled".into());
        let name = request
            .name
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| title.clone());
        let now = unix(&clock::now());
        let metadata = SessionMetadata {
            id: format!("{}{}", files::PREFIX, crate::random::random_secret("", 16)),
            name,
            title,
            created_at: unix(&thread.created_at),
            updated_at: now,
            message_count: messages.len() as u64,
            workspace: thread.workspace.clone(),
            model: thread.model.clone(),
            source_thread_id: Some(thread.id.clone()),
        };
        let session = SessionDetail {
            metadata: metadata.clone(),
            messages,
            system_prompt: thread.system_prompt.clone().unwrap_or_default(),
        };
        self.on_files(&metadata.id, move |files| files.write(&session))
            .await?;
        Ok(metadata)
    }

    /// A new thread carrying the session's conversation: each user message
    /// opens a finished turn holding it and the answers after it.
    pub async fn resume_session_as_thread(&self, id: &str) -> Result<ThreadRecord, RuntimeError> {
        let session = self.session(id).await?;
        // Its workspace when it still exists, else the runtime's.
        let workspace = session
            .metadata
            .workspace
            .clone()
            .filter(|w| std::path::Path::new(w).is_dir());
        let request = CreateThread {
            workspace,
            model: session
                .metadata
                .model
                .clone()
                .filter(|m| !m.trim().is_empty()),
            // A hand-written or legacy title may be longer than a thread's.
            title: Some(clip(&session.metadata.title, threads::MAX_TITLE_CHARS))
                .filter(|t| !t.trim().is_empty()),
            system_prompt: Some(session.system_prompt.clone()).filter(|p| !p.is_empty()),
            ..CreateThread::default()
        };
        let thread = self.create_thread(request).await?;
        let now = clock::now();
        let mut tx = self.store.begin_write().await?;
        let mut turn: Option<TurnRecord> = None;
        let mut latest = None;
        for message in &session.messages {
            let text = text_of(message);
            let kind = match message.role.as_str() {
                "user" => ItemKind::UserMessage,
                "assistant" => ItemKind::AgentMessage,
                _ => continue,
            };
            if text.is_empty() {
                continue;
            }
            if kind == ItemKind::UserMessage || turn.is_none() {
                let record = TurnRecord {
                    id: ids::new(ids::TURN),
                    thread_id: thread.id.clone(),
                    status: TurnStatus::Completed,
                    input_summary: summary(&text),
                    created_at: now.clone(),
                    started_at: Some(now.clone()),
                    ended_at: Some(now.clone()),
                    duration_ms: Some(0),
                    usage: Usage::default(),
                    effective_provider: None,
                    effective_model: None,
                    effective_billing_surface: None,
                    error: None,
                    steer_count: 0,
                    undone_at: None,
                    instructions: Vec::new(),
                };
                store::turns::upsert(tx.conn(), &record).await?;
                latest = Some(record.id.clone());
                turn = Some(record);
            }
            let Some(current) = &turn else { continue };
            let item = TurnItemRecord {
                id: ids::new(ids::ITEM),
                turn_id: current.id.clone(),
                kind,
                status: ItemStatus::Completed,
                summary: summary(&text),
                detail: Some(text),
                metadata: json!({ "imported_from": session.metadata.id }),
                started_at: Some(now.clone()),
                ended_at: Some(now.clone()),
            };
            store::turns::upsert_item(tx.conn(), &thread.id, &item).await?;
        }
        if let Some(latest) = latest {
            let mut row = store::threads::get(tx.conn(), &thread.id)
                .await?
                .ok_or_else(|| RuntimeError::Internal("the new thread vanished".into()))?;
            row.latest_turn_id = Some(latest);
            store::threads::update(tx.conn(), &row).await?;
        }
        tx.commit().await?;
        self.thread(&thread.id).await.map(|detail| detail.thread)
    }
}
