//! Threads: create, list, summarize, read, patch.

use super::{git::GitCache, ids};
use crate::{
    clock,
    runtime::error::RuntimeError,
    store::{self, ArchiveScope, NewEvent, Store, ThreadRow},
};
use futures::future::join_all;
use protocol::{
    CreateThread, EventPayload, ItemKind, ListThreads, Mode, PatchThread, ThreadDetail,
    ThreadForkedPayload, ThreadRecord, ThreadStartedPayload, ThreadSummary, ThreadUpdatedPayload,
    TurnItemRecord, TurnRecord,
};
use std::{collections::HashMap, path::Path, sync::Arc};

/// The longest title, counted as given (surrounding blanks included).
pub const MAX_TITLE_CHARS: usize = 160;
/// The most threads one list request returns.
pub const MAX_LIST_LIMIT: i64 = 500;
/// The longest title made from a first prompt, ellipsis included.
pub const PROMPT_TITLE_CHARS: usize = 60;

/// The rules of a list query: which archive state, how many, what search.
fn scope(query: &ListThreads) -> ArchiveScope {
    match (query.archived_only, query.include_archived) {
        (true, _) => ArchiveScope::ArchivedOnly,
        (false, true) => ArchiveScope::All,
        (false, false) => ArchiveScope::Active,
    }
}

fn limit(query: &ListThreads) -> Result<i64, RuntimeError> {
    match query.limit {
        None => Ok(50),
        Some(limit @ 1..=MAX_LIST_LIMIT) => Ok(limit),
        Some(other) => Err(RuntimeError::invalid(format!(
            "limit must be between 1 and {MAX_LIST_LIMIT} (got {other})"
        ))),
    }
}

/// Surrounding blanks never count; an all-blank search is no search.
fn search(query: &ListThreads) -> Option<&str> {
    query
        .search
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

pub async fn create(
    store: &Arc<Store>,
    default_workspace: &Path,
    request: CreateThread,
) -> Result<ThreadRecord, RuntimeError> {
    let workspace = match request.workspace.as_deref() {
        Some(path) => canonical_workspace(path)?,
        None => default_workspace.display().to_string(),
    };
    let now = clock::now();
    let row = ThreadRow {
        id: ids::new(ids::THREAD),
        created_at: now.clone(),
        updated_at: now,
        model: request.model.map(|m| non_empty(m, "model")).transpose()?,
        model_provider: request
            .model_provider
            .map(|p| non_empty(p, "model_provider"))
            .transpose()?,
        workspace: Some(workspace),
        mode: mode(request.mode.as_deref().unwrap_or("agent"))?,
        allow_shell: request.allow_shell.unwrap_or(true),
        trust_mode: request.trust_mode.unwrap_or(false),
        auto_approve: request.auto_approve.unwrap_or(false),
        title: request.title.map(title).transpose()?.flatten(),
        system_prompt: request.system_prompt.filter(|p| !p.is_empty()),
        task_id: None,
        latest_turn_id: None,
        latest_response_bookmark: None,
        archived: false,
        dynamic_tools: dynamic_tools(request.dynamic_tools.unwrap_or_default())?,
        preview: None,
    };
    let record = ThreadRecord::from(row.clone());
    let started = NewEvent::thread(
        &row.id,
        EventPayload::ThreadStarted(ThreadStartedPayload {
            thread: record.clone(),
        }),
    );
    store.create_thread(row, started).await?;
    Ok(record)
}

pub async fn list(store: &Store, query: &ListThreads) -> Result<Vec<ThreadRecord>, RuntimeError> {
    let rows = store::threads::list::<ThreadRow>(
        &mut *store.reader().await?,
        scope(query),
        search(query),
        limit(query)?,
    )
    .await?;
    Ok(rows.into_iter().map(ThreadRecord::from).collect())
}

/// Rows for thread pickers. Git facts are read once per distinct workspace
/// on the page, concurrently; the cost follows the page, not the store.
pub async fn summaries(
    store: &Store,
    git: &GitCache,
    query: &ListThreads,
) -> Result<Vec<ThreadSummary>, RuntimeError> {
    let rows = store::threads::list::<store::threads::SummaryRow>(
        &mut *store.reader().await?,
        scope(query),
        search(query),
        limit(query)?,
    )
    .await?;
    let mut workspaces: Vec<String> = rows.iter().filter_map(|r| r.workspace.clone()).collect();
    workspaces.sort_unstable();
    workspaces.dedup();
    let read = join_all(workspaces.iter().map(|w| git.facts(w))).await;
    let facts: HashMap<String, _> = workspaces.into_iter().zip(read).collect();
    let turn_ids: Vec<&str> = rows
        .iter()
        .filter_map(|r| r.latest_turn_id.as_deref())
        .collect();
    let mut statuses = store::turns::statuses_of(&mut *store.reader().await?, &turn_ids).await?;
    let mut summaries = Vec::with_capacity(rows.len());
    // The rows are moved into the summaries: a page is 50 rows of a dozen
    // strings, and allocation was a fifth of a listing's time.
    for row in rows {
        let git = row
            .workspace
            .as_deref()
            .and_then(|w| facts.get(w))
            .cloned()
            .unwrap_or_default();
        let latest_turn_status = row
            .latest_turn_id
            .as_deref()
            .and_then(|turn| statuses.remove(turn));
        summaries.push(ThreadSummary {
            id: row.id,
            title: row.title,
            preview: row.preview,
            model: row.model,
            mode: row.mode,
            workspace: row.workspace,
            branch: git.branch,
            head: git.head,
            dirty: git.dirty,
            archived: row.archived,
            updated_at: row.updated_at,
            latest_turn_id: row.latest_turn_id,
            latest_turn_status,
        });
    }
    Ok(summaries)
}

/// The snapshot, read in one statement so that it and `latest_seq`
/// describe the same moment (WAL snapshot isolation).
pub async fn detail(store: &Store, id: &str) -> Result<ThreadDetail, RuntimeError> {
    let id = ids::parse(ids::THREAD, id, "thread")?;
    let snapshot = store::thread_detail::read(&mut *store.reader().await?, id)
        .await?
        .ok_or_else(|| not_found(id))?;
    Ok(ThreadDetail {
        thread: snapshot.thread.into(),
        turns: snapshot.turns,
        items: snapshot.items,
        latest_seq: snapshot.latest_seq,
        // Filled by the turn manager, which knows the engine.
        effective_model: None,
        // Filled by the engine's approval, user-input and client-tool bridges.
        pending_approvals: Vec::new(),
        pending_user_inputs: Vec::new(),
        pending_dynamic_tool_calls: Vec::new(),
    })
}

/// A read transaction (one WAL snapshot) and the thread's row in it.
async fn read_thread(
    store: &Store,
    id: &str,
) -> Result<(sqlx::Transaction<'static, sqlx::Sqlite>, ThreadRow), RuntimeError> {
    let id = ids::parse(ids::THREAD, id, "thread")?;
    let mut tx = store
        .pool()
        .begin()
        .await
        .map_err(store::StoreError::from)?;
    let thread = store::threads::get(&mut tx, id)
        .await?
        .ok_or_else(|| not_found(id))?;
    Ok((tx, thread))
}

/// Items `start..end` of a thread (clamped to what it holds), in order:
/// one page of a transcript, read without the rest of the snapshot.
pub async fn items_in_range(
    store: &Store,
    id: &str,
    start: usize,
    end: usize,
) -> Result<Vec<TurnItemRecord>, RuntimeError> {
    let (mut tx, thread) = read_thread(store, id).await?;
    // SQLite takes signed 64-bit bounds; a thread never holds i64::MAX items.
    let offset = i64::try_from(start).unwrap_or(i64::MAX);
    let limit = i64::try_from(end.saturating_sub(start)).unwrap_or(i64::MAX);
    let items = if limit == 0 {
        Vec::new()
    } else {
        store::turns::items_in_range(&mut tx, &thread.id, offset, limit).await?
    };
    tx.commit().await.map_err(store::StoreError::from)?;
    Ok(items)
}

pub async fn patch(
    store: &Store,
    id: &str,
    patch: PatchThread,
) -> Result<ThreadRecord, RuntimeError> {
    let id = ids::parse(ids::THREAD, id, "thread")?;
    if patch.is_empty() {
        return Err(RuntimeError::invalid(
            "PATCH needs at least one field to change",
        ));
    }
    let mut tx = store.begin_write().await?;
    let mut row = store::threads::get(tx.conn(), id)
        .await?
        .ok_or_else(|| not_found(id))?;
    let mut changed = Vec::new();
    macro_rules! set {
        ($field:ident, $value:expr) => {
            if let Some(value) = $value {
                if row.$field != value {
                    row.$field = value;
                    changed.push(stringify!($field));
                }
            }
        };
    }
    set!(archived, patch.archived);
    set!(allow_shell, patch.allow_shell);
    set!(trust_mode, patch.trust_mode);
    set!(auto_approve, patch.auto_approve);
    set!(
        model,
        patch
            .model
            .map(|m| non_empty(m, "model"))
            .transpose()?
            .map(Some)
    );
    set!(mode, patch.mode.as_deref().map(mode).transpose()?);
    set!(title, patch.title.map(title).transpose()?);
    set!(
        system_prompt,
        patch.system_prompt.map(|p| (!p.is_empty()).then_some(p))
    );
    set!(
        workspace,
        patch
            .workspace
            .as_deref()
            .map(canonical_workspace)
            .transpose()?
            .map(Some)
    );
    if changed.is_empty() {
        return Ok(row.into());
    }
    row.updated_at = clock::now();
    store::threads::update(tx.conn(), &row).await?;
    let record = ThreadRecord::from(row);
    tx.append(NewEvent::thread(
        id,
        EventPayload::ThreadUpdated(ThreadUpdatedPayload {
            thread: record.clone(),
            changed: changed.into_iter().map(str::to_string).collect(),
        }),
    ))
    .await?;
    tx.commit().await?;
    Ok(record)
}

/// 404 for a thread that does not exist.
pub async fn ensure_exists(store: &Store, id: &str) -> Result<(), RuntimeError> {
    let id = ids::parse(ids::THREAD, id, "thread")?;
    let mut conn = store.conn().await?;
    store::threads::get(&mut conn, id)
        .await?
        .map(|_| ())
        .ok_or_else(|| not_found(id))
}

fn not_found(id: &str) -> RuntimeError {
    RuntimeError::NotFound(format!("thread {id} not found"))
}

fn non_empty(value: String, field: &str) -> Result<String, RuntimeError> {
    let trimmed = value.trim();
    if trimmed.is_empty() {
        Err(RuntimeError::invalid(format!("{field} must not be empty")))
    } else {
        Ok(trimmed.to_string())
    }
}

/// A mode named by a request, as stored.
pub(super) fn mode(value: &str) -> Result<String, RuntimeError> {
    Mode::parse(value)
        .map(|mode| mode.as_str().to_string())
        .map_err(RuntimeError::Invalid)
}

/// An empty (or blank) title clears it. The length counts what was sent,
/// as the API document's `maxLength` does.
fn title(value: String) -> Result<Option<String>, RuntimeError> {
    let trimmed = value.trim();
    if value.chars().count() > MAX_TITLE_CHARS {
        return Err(RuntimeError::invalid(format!(
            "title is longer than {MAX_TITLE_CHARS} characters"
        )));
    }
    Ok((!trimmed.is_empty()).then(|| trimmed.to_string()))
}

/// The title a thread gets from its first prompt: the first non-blank
/// line, whitespace collapsed, cut at a word boundary with an ellipsis when
/// longer than `PROMPT_TITLE_CHARS` (a rail row and a header show one line).
pub fn title_from_prompt(prompt: &str) -> Option<String> {
    let line = prompt.lines().find(|l| !l.trim().is_empty())?;
    let words: Vec<&str> = line.split_whitespace().collect();
    let full = words.join(" ");
    if full.chars().count() <= PROMPT_TITLE_CHARS {
        return Some(full);
    }
    let room = PROMPT_TITLE_CHARS - 1; // for the ellipsis
    let mut title = String::new();
    for word in &words {
        let needed = title.chars().count() + usize::from(!title.is_empty()) + word.chars().count();
        if needed > room {
            break;
        }
        if !title.is_empty() {
            title.push(' ');
        }
        title.push_str(word);
    }
    // One word longer than the room (a path, a URL) is cut inside it.
    if title.chars().count() < room / 2 {
        title = full
            .chars()
            .take(room)
            .collect::<String>()
            .trim_end()
            .to_string();
    }
    title.push('…');
    Some(title)
}

/// An existing directory, stored canonical. A path that names no
/// directory is a conflict with this machine's files (409), not a malformed
/// request: the same request works once the directory exists.
pub(super) fn canonical_workspace(path: &str) -> Result<String, RuntimeError> {
    let canonical = std::fs::canonicalize(path)
        .map_err(|_| RuntimeError::Conflict(format!("workspace {path:?} does not exist")))?;
    if !canonical.is_dir() {
        return Err(RuntimeError::Conflict(format!(
            "workspace {path:?} is not a directory"
        )));
    }
    Ok(canonical.display().to_string())
}

fn dynamic_tools(tools: Vec<protocol::DynamicToolSpec>) -> Result<String, RuntimeError> {
    super::client_tools::validate(&tools)?;
    serde_json::to_string(&tools).map_err(|e| RuntimeError::invalid(e.to_string()))
}

/// A sibling thread with the same settings and a copy of the source's
/// finished turns and their items (under new ids). A turn still running in
/// the source is not copied. With `until` (a user message's item id), the
/// copy ends just before that message; the message's own turn is returned.
pub async fn fork(
    store: &Store,
    id: &str,
    until: Option<&str>,
) -> Result<(ThreadRecord, Option<TurnRecord>), RuntimeError> {
    let source_id = ids::parse(ids::THREAD, id, "thread")?;
    let mut tx = store.begin_write().await?;
    let source = store::threads::get(tx.conn(), source_id)
        .await?
        .ok_or_else(|| not_found(source_id))?;
    let mut turns = store::turns::by_thread(tx.conn(), source_id).await?;
    let mut items = store::turns::items_by_thread(tx.conn(), source_id).await?;
    let mut cut_turn = None;
    if let Some(until) = until {
        let until = ids::parse(ids::ITEM, until, "item")?;
        let at = items
            .iter()
            .position(|item| item.id == until)
            .ok_or_else(|| {
                RuntimeError::NotFound(format!("thread {source_id} has no item {until}"))
            })?;
        if items[at].kind != ItemKind::UserMessage {
            return Err(RuntimeError::Conflict(format!(
                "item {until} is not a user message; a fork starts before one"
            )));
        }
        let turn_id = items[at].turn_id.clone();
        items.truncate(at);
        cut_turn = turns.iter().find(|t| t.id == turn_id).cloned();
        turns.retain(|turn| items.iter().any(|item| item.turn_id == turn.id));
    }
    let now = clock::now();
    let mut fork = source.clone();
    fork.id = ids::new(ids::THREAD);
    fork.created_at = now.clone();
    fork.updated_at = now;
    fork.archived = false;
    fork.title = source.title.as_ref().map(|t| format!("{t} (fork)"));
    fork.latest_turn_id = None;
    fork.latest_response_bookmark = None;
    store::threads::insert(tx.conn(), &fork).await?;
    let mut turn_ids = HashMap::new();
    for mut turn in turns.into_iter().filter(|t| !t.status.is_active()) {
        let new_id = ids::new(ids::TURN);
        turn_ids.insert(turn.id.clone(), new_id.clone());
        turn.id = new_id.clone();
        turn.thread_id = fork.id.clone();
        store::turns::upsert(tx.conn(), &turn).await?;
        fork.latest_turn_id = Some(new_id);
    }
    for mut item in items {
        let Some(turn_id) = turn_ids.get(&item.turn_id) else {
            continue;
        };
        item.id = ids::new(ids::ITEM);
        item.turn_id = turn_id.clone();
        store::turns::upsert_item(tx.conn(), &fork.id, &item).await?;
    }
    store::threads::update(tx.conn(), &fork).await?;
    let record = ThreadRecord::from(fork);
    tx.append(NewEvent::thread(
        &record.id,
        EventPayload::ThreadForked(ThreadForkedPayload {
            thread: record.clone(),
            source_thread_id: source_id.to_string(),
        }),
    ))
    .await?;
    tx.commit().await?;
    Ok((record, cut_turn))
}

/// Brings a thread back to active work: an archived thread is unarchived.
pub async fn resume(store: &Store, id: &str) -> Result<ThreadRecord, RuntimeError> {
    let patch_unarchive = PatchThread {
        archived: Some(false),
        ..PatchThread::default()
    };
    patch(store, id, patch_unarchive).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_titles_are_one_short_line() {
        assert_eq!(
            title_from_prompt("  \n\n  Fix   the\tbuild  \nmore"),
            Some("Fix the build".into())
        );
        assert_eq!(title_from_prompt(" \n\t "), None);
        let long =
            "Refactor the approval flow so that remembered decisions apply to running turns too";
        let title = title_from_prompt(long).unwrap();
        assert_eq!(
            title,
            "Refactor the approval flow so that remembered decisions…"
        );
        assert!(title.chars().count() <= PROMPT_TITLE_CHARS);
        let path = format!("Read {}", "a/".repeat(80));
        let title = title_from_prompt(&path).unwrap();
        assert_eq!(title.chars().count(), PROMPT_TITLE_CHARS);
        assert!(title.starts_with("Read a/a/") && title.ends_with('…'));
        let exact = "x".repeat(PROMPT_TITLE_CHARS);
        assert_eq!(title_from_prompt(&exact), Some(exact));
    }
}
