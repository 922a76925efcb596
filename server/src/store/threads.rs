//! Thread rows.

use super::StoreError;
use protocol::{Mode, ThreadRecord};
use sqlx::{SqliteConnection, SqlitePool};

/// Also read from a JSON array of `COLUMNS` (`list`, `thread_detail`).
#[derive(Clone, Debug, sqlx::FromRow, serde::Deserialize)]
pub struct ThreadRow {
    pub id: String,
    pub created_at: String,
    pub updated_at: String,
    pub model: Option<String>,
    pub model_provider: Option<String>,
    pub workspace: Option<String>,
    pub mode: String,
    #[serde(deserialize_with = "int_bool")]
    pub allow_shell: bool,
    #[serde(deserialize_with = "int_bool")]
    pub trust_mode: bool,
    #[serde(deserialize_with = "int_bool")]
    pub auto_approve: bool,
    pub title: Option<String>,
    pub system_prompt: Option<String>,
    pub task_id: Option<String>,
    pub latest_turn_id: Option<String>,
    pub latest_response_bookmark: Option<String>,
    #[serde(deserialize_with = "int_bool")]
    pub archived: bool,
    pub dynamic_tools: String,
    pub preview: Option<String>,
}

/// SQLite stores a bool as an integer, and `json_array` writes it so; any
/// non-zero is true, as sqlx reads the column.
fn int_bool<'de, D: serde::Deserializer<'de>>(from: D) -> Result<bool, D::Error> {
    Ok(<i64 as serde::Deserialize>::deserialize(from)? != 0)
}

impl ThreadRow {
    /// Validated when written; an unreadable mode allows least.
    pub fn mode(&self) -> Mode {
        Mode::parse(&self.mode).unwrap_or(Mode::Plan)
    }
}

impl From<ThreadRow> for ThreadRecord {
    fn from(row: ThreadRow) -> Self {
        let mode = row.mode();
        ThreadRecord {
            id: row.id,
            created_at: row.created_at,
            updated_at: row.updated_at,
            model: row.model,
            model_provider: row.model_provider,
            workspace: row.workspace,
            mode,
            allow_shell: row.allow_shell,
            trust_mode: row.trust_mode,
            auto_approve: row.auto_approve,
            title: row.title,
            system_prompt: row.system_prompt,
            task_id: row.task_id,
            latest_turn_id: row.latest_turn_id,
            latest_response_bookmark: row.latest_response_bookmark,
            archived: row.archived,
            // Validated when written; an unreadable value offers no tools.
            dynamic_tools: serde_json::from_str(&row.dynamic_tools).unwrap_or_default(),
        }
    }
}

pub(super) const COLUMNS: &str =
    "id, created_at, updated_at, model, model_provider, workspace, mode, \
    allow_shell, trust_mode, auto_approve, title, system_prompt, task_id, latest_turn_id, \
    latest_response_bookmark, archived, dynamic_tools, preview";

/// Which threads a listing covers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ArchiveScope {
    #[default]
    Active,
    All,
    ArchivedOnly,
}

impl ArchiveScope {
    fn sql(self) -> &'static str {
        match self {
            ArchiveScope::Active => "archived = 0",
            ArchiveScope::All => "archived IN (0, 1)",
            ArchiveScope::ArchivedOnly => "archived = 1",
        }
    }
}

pub async fn insert(conn: &mut SqliteConnection, row: &ThreadRow) -> Result<(), StoreError> {
    insert_all(conn, std::slice::from_ref(row)).await
}

/// Inserts `rows` in one statement (one round trip to sqlx's SQLite thread,
/// which is what a thread creation costs; see `creations`).
pub async fn insert_all(conn: &mut SqliteConnection, rows: &[ThreadRow]) -> Result<(), StoreError> {
    let mut query = sqlx::QueryBuilder::new(format!("INSERT INTO threads ({COLUMNS}) "));
    query.push_values(rows, |mut values, row| {
        values
            .push_bind(&row.id)
            .push_bind(&row.created_at)
            .push_bind(&row.updated_at)
            .push_bind(&row.model)
            .push_bind(&row.model_provider)
            .push_bind(&row.workspace)
            .push_bind(&row.mode)
            .push_bind(row.allow_shell)
            .push_bind(row.trust_mode)
            .push_bind(row.auto_approve)
            .push_bind(&row.title)
            .push_bind(&row.system_prompt)
            .push_bind(&row.task_id)
            .push_bind(&row.latest_turn_id)
            .push_bind(&row.latest_response_bookmark)
            .push_bind(row.archived)
            .push_bind(&row.dynamic_tools)
            .push_bind(&row.preview);
    });
    // One cached statement for the single row; a batch's text varies with
    // its size and would crowd the connection's statement cache.
    query
        .build()
        .persistent(rows.len() == 1)
        .execute(conn)
        .await?;
    Ok(())
}

/// Writes every mutable column of `row` back.
pub async fn update(conn: &mut SqliteConnection, row: &ThreadRow) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE threads SET updated_at = ?2, model = ?3, workspace = ?4, mode = ?5, allow_shell = ?6,
         trust_mode = ?7, auto_approve = ?8, title = ?9, system_prompt = ?10, archived = ?11,
         latest_turn_id = ?12, latest_response_bookmark = ?13, preview = ?14 WHERE id = ?1",
    )
    .bind(&row.id)
    .bind(&row.updated_at)
    .bind(&row.model)
    .bind(&row.workspace)
    .bind(&row.mode)
    .bind(row.allow_shell)
    .bind(row.trust_mode)
    .bind(row.auto_approve)
    .bind(&row.title)
    .bind(&row.system_prompt)
    .bind(row.archived)
    .bind(&row.latest_turn_id)
    .bind(&row.latest_response_bookmark)
    .bind(&row.preview)
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn get(conn: &mut SqliteConnection, id: &str) -> Result<Option<ThreadRow>, StoreError> {
    Ok(
        sqlx::query_as(&format!("SELECT {COLUMNS} FROM threads WHERE id = ?1"))
            .bind(id)
            .fetch_optional(conn)
            .await?,
    )
}

/// Newest first. `search` is a case-insensitive substring of id, title,
/// preview or model.
///
/// Three characters or more go first to the trigram index
/// (`threads_search`): when it finds fewer than `FEW` threads, only those are
/// read and sorted. When it finds more, matches are dense, and walking the
/// threads newest first fills a page after a few rows; that walk is also
/// the only way for shorter searches, which no trigram can match.
pub async fn list<R: Listed>(
    conn: &mut SqliteConnection,
    filter: ArchiveScope,
    search: Option<&str>,
    limit: i64,
) -> Result<Vec<R>, StoreError> {
    const FEW: i64 = 1_000;
    let order = "ORDER BY updated_at DESC, id DESC LIMIT ?1";
    let Some(text) = search else {
        let rows = sqlx::query_scalar(&packed::<R>(&format!(
            "SELECT {COLUMNS} FROM threads WHERE {} {order}",
            filter.sql()
        )))
        .bind(limit)
        .fetch_one(&mut *conn)
        .await?;
        return unpack(rows);
    };
    // SQLite's matching (FTS5 and LIKE alike) reads the search as a C
    // string: past a NUL it would see a shorter search and match far too
    // much. A search holding one is answered as what it is, a text no
    // title or prompt is expected to hold.
    if text.contains('\0') {
        return Ok(Vec::new());
    }
    if text.chars().count() >= 3 {
        // One quoted phrase: the text as a substring, whatever it holds.
        let phrase = format!("\"{}\"", text.replace('"', "\"\""));
        let hits: Result<Vec<i64>, _> = sqlx::query_scalar(
            "SELECT rowid FROM threads_search WHERE threads_search MATCH ?1 LIMIT ?2",
        )
        .bind(phrase)
        .bind(FEW)
        .fetch_all(&mut *conn)
        .await;
        // A query the index refuses is still a substring to look for: the
        // walk below finds it.
        let few = match hits {
            Ok(hits) => Some(hits).filter(|hits| (hits.len() as i64) < FEW),
            Err(error) => {
                tracing::debug!(%error, "the search index refused a query; walking instead");
                None
            }
        };
        if let Some(hits) = few {
            let hits =
                serde_json::to_string(&hits).map_err(|e| StoreError::Corrupt(e.to_string()))?;
            // CROSS JOIN: the hits drive the loop (the planner would
            // otherwise walk every thread in recency order to test each).
            let rows = sqlx::query_scalar(&packed::<R>(&format!(
                "SELECT {COLUMNS} FROM (SELECT value AS hit FROM json_each(?2)) AS hits
                 CROSS JOIN threads ON threads.rowid = hits.hit WHERE {} {order}",
                filter.sql()
            )))
            .bind(limit)
            .bind(hits)
            .fetch_one(&mut *conn)
            .await?;
            return unpack(rows);
        }
    }
    let pattern = format!("%{}%", escape_like(&text.to_lowercase()));
    let rows = sqlx::query_scalar(&packed::<R>(&format!(
        "SELECT {COLUMNS} FROM threads WHERE {} AND (
            lower(id) LIKE ?2 ESCAPE '\\' OR lower(coalesce(title, '')) LIKE ?2 ESCAPE '\\'
            OR lower(coalesce(preview, '')) LIKE ?2 ESCAPE '\\' OR lower(coalesce(model, '')) LIKE ?2 ESCAPE '\\')
         {order}",
        filter.sql()
    )))
    .bind(limit)
    .bind(pattern)
    .fetch_one(&mut *conn)
    .await?;
    unpack(rows)
}

/// A listing's rows as one JSON text: `select` (of `COLUMNS`) as a
/// subquery, each row a JSON array of its columns. A page is then one value
/// to hand from sqlx's SQLite thread instead of 18 per row, each copied and
/// freed on its own (what a listing's time went to, with the hand-offs).
fn packed<R: Listed>(select: &str) -> String {
    let columns = R::COLUMNS;
    format!("SELECT json_group_array(json_array({columns})) FROM ({select})")
}

/// The rows of `packed`, newest first: the subquery's order decided which
/// rows (with its LIMIT), but an aggregate does not promise to keep it.
fn unpack<R: Listed>(json: String) -> Result<Vec<R>, StoreError> {
    let mut rows: Vec<R> =
        serde_json::from_str(&json).map_err(|e| StoreError::Corrupt(format!("threads: {e}")))?;
    rows.sort_by(|a, b| b.order().cmp(&a.order()));
    Ok(rows)
}

/// What a listing reads of each thread: the whole row, or what a picker
/// shows (`SummaryRow`, half the columns and none of the long ones).
pub trait Listed: serde::de::DeserializeOwned {
    /// Its columns, in the order of its fields.
    const COLUMNS: &'static str;
    /// (updated_at, id): a listing's order, newest first.
    fn order(&self) -> (&str, &str);
}

impl Listed for ThreadRow {
    const COLUMNS: &'static str = COLUMNS;
    fn order(&self) -> (&str, &str) {
        (&self.updated_at, &self.id)
    }
}

/// A thread as a picker lists it.
#[derive(Debug, serde::Deserialize)]
pub struct SummaryRow {
    pub id: String,
    pub updated_at: String,
    pub title: Option<String>,
    pub preview: Option<String>,
    pub model: Option<String>,
    pub mode: String,
    pub workspace: Option<String>,
    #[serde(deserialize_with = "int_bool")]
    pub archived: bool,
    pub latest_turn_id: Option<String>,
}

impl Listed for SummaryRow {
    const COLUMNS: &'static str =
        "id, updated_at, title, preview, model, mode, workspace, archived, latest_turn_id";
    fn order(&self) -> (&str, &str) {
        (&self.updated_at, &self.id)
    }
}

fn escape_like(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

/// Every workspace some thread names, once each.
pub async fn workspaces(pool: &SqlitePool) -> Result<Vec<String>, StoreError> {
    Ok(
        sqlx::query_scalar("SELECT DISTINCT workspace FROM threads WHERE workspace IS NOT NULL")
            .fetch_all(pool)
            .await?,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_packed_listing_reads_what_rows_hold() {
        let home = tempfile::tempdir().unwrap();
        let store = crate::store::Store::open(home.path()).await.unwrap();
        let awkward = "\"quoted\" back\\slash\nline \u{0}\u{1f} 🐋 {\"json\": 1}";
        // Equal times, so the order falls to the id; flags of both values.
        for (n, at) in ["2026-01-02", "2026-01-03", "2026-01-02", "2026-01-01"]
            .into_iter()
            .enumerate()
        {
            sqlx::query(
                "INSERT INTO threads (id, created_at, updated_at, title, preview, model,
                   allow_shell, trust_mode, auto_approve, archived, dynamic_tools)
                 VALUES (?1, ?2, ?2, ?3, NULL, ?4, ?5, ?6, ?5, 0, '[{\"name\": \"t\"}]')",
            )
            .bind(format!("thr_{n}"))
            .bind(at)
            .bind(format!("{awkward} {n}"))
            .bind((n % 2 == 0).then_some("model \"x\""))
            .bind(n % 2 == 0)
            .bind(n % 2 == 1)
            .execute(store.pool())
            .await
            .unwrap();
        }
        let listed = list::<ThreadRow>(
            &mut store.reader().await.unwrap(),
            ArchiveScope::All,
            None,
            3,
        )
        .await
        .unwrap();
        let by_rows: Vec<ThreadRow> = sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM threads ORDER BY updated_at DESC, id DESC LIMIT 3"
        ))
        .fetch_all(store.pool())
        .await
        .unwrap();
        let ids: Vec<&str> = listed.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["thr_1", "thr_2", "thr_0"]);
        assert_eq!(format!("{listed:?}"), format!("{by_rows:?}"));
        // Both search paths (the index, and the walk for short texts)
        // pack their rows the same way.
        let all = list::<ThreadRow>(
            &mut store.reader().await.unwrap(),
            ArchiveScope::All,
            None,
            10,
        )
        .await
        .unwrap();
        for search in ["back\\slash", "qu"] {
            let found = list::<ThreadRow>(
                &mut store.reader().await.unwrap(),
                ArchiveScope::All,
                Some(search),
                10,
            )
            .await
            .unwrap();
            assert_eq!(format!("{found:?}"), format!("{all:?}"), "{search}");
        }
        assert_eq!(all.len(), 4);
        // What a picker reads: the same threads, in the same order.
        let summaries: Vec<SummaryRow> = list(
            &mut store.reader().await.unwrap(),
            ArchiveScope::All,
            None,
            10,
        )
        .await
        .unwrap();
        let shown: Vec<_> = summaries
            .iter()
            .map(|s| (&s.id, &s.title, &s.model, s.archived, &s.updated_at))
            .collect();
        let full: Vec<_> = all
            .iter()
            .map(|r| (&r.id, &r.title, &r.model, r.archived, &r.updated_at))
            .collect();
        assert_eq!(shown, full);
        let none = list::<ThreadRow>(
            &mut store.reader().await.unwrap(),
            ArchiveScope::ArchivedOnly,
            None,
            10,
        )
        .await
        .unwrap();
        assert!(none.is_empty());
    }
}
