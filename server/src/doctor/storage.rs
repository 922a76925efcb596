//! Directory facts (present, entries, bytes) and the store's schema
//! version, read without creating or migrating anything.

use serde::Serialize;
use sqlx::{
    sqlite::{SqliteConnectOptions, SqliteConnection},
    ConnectOptions, Connection,
};
use std::path::Path;

/// A directory (or file) and what is in it.
#[derive(Debug, Serialize)]
pub struct Place {
    pub path: String,
    pub present: bool,
    /// Entries directly inside (directories only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// Total size of the files below, symlinks not followed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
}

impl Place {
    /// Presence and the number of entries directly inside.
    pub fn counted(path: &Path) -> Self {
        let count = std::fs::read_dir(path).ok().map(|d| d.count() as u64);
        Self {
            path: path.display().to_string(),
            present: path.exists(),
            count,
            bytes: None,
        }
    }

    /// Presence, entries and total bytes below.
    pub fn measured(path: &Path) -> Self {
        let present = path.exists();
        Self {
            bytes: present.then(|| size(path)),
            ..Self::counted(path)
        }
    }
}

/// Bytes of the files under `path` (a file: its size). Walks without
/// following links, so a link to `/` costs nothing.
pub fn size(path: &Path) -> u64 {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return 0;
    };
    if !meta.is_dir() {
        return meta.len();
    }
    let mut total = 0;
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(entry.path()),
                Ok(t) if t.is_file() => total += entry.metadata().map(|m| m.len()).unwrap_or(0),
                _ => {}
            }
        }
    }
    total
}

/// The store database and its migration state.
#[derive(Debug, Serialize)]
pub struct StoreFacts {
    pub path: String,
    pub present: bool,
    /// The database with its WAL and shared-memory files.
    pub bytes: Option<u64>,
    /// The newest migration applied (`_sqlx_migrations`); null when absent.
    pub schema_version: Option<i64>,
    /// The newest migration this binary has: a store behind it is migrated
    /// by the next command that opens it.
    pub expected_schema_version: i64,
    pub error: Option<String>,
}

pub async fn store(home: &Path) -> StoreFacts {
    let path = home.join(crate::store::DATABASE_FILE);
    let expected = sqlx::migrate!("./migrations")
        .iter()
        .map(|m| m.version)
        .max()
        .unwrap_or(0);
    let present = path.is_file();
    let mut facts = StoreFacts {
        path: path.display().to_string(),
        present,
        bytes: None,
        schema_version: None,
        expected_schema_version: expected,
        error: None,
    };
    if !present {
        return facts;
    }
    let bytes = ["", "-wal", "-shm"]
        .iter()
        .map(|suffix| {
            let mut name = path.clone().into_os_string();
            name.push(suffix);
            size(Path::new(&name))
        })
        .sum();
    facts.bytes = Some(bytes);
    match schema_version(&path).await {
        Ok(version) => facts.schema_version = version,
        Err(error) => facts.error = Some(error),
    }
    facts
}

/// Read-only, never created: a missing table is "no version", not a
/// reason to migrate. A read-only connection to a WAL database still
/// creates `-wal` and `-shm` (and cannot remove them), so a store closed
/// cleanly (no `-wal`: everything is in the main file) is opened
/// `immutable`, which creates nothing; one in use is read through its WAL.
/// The store, read-only, without creating or migrating anything.
async fn open_read_only(path: &Path) -> Result<SqliteConnection, String> {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    let in_use = Path::new(&wal).exists();
    let options = SqliteConnectOptions::new()
        .filename(path)
        .read_only(true)
        .immutable(!in_use)
        .create_if_missing(false)
        .disable_statement_logging();
    SqliteConnection::connect_with(&options)
        .await
        .map_err(|e| format!("cannot open the store read-only: {e}"))
}

/// Rows per table, and turns per status: counts only, never a row.
pub async fn counts(home: &Path) -> Result<StoreCounts, String> {
    let path = home.join(crate::store::DATABASE_FILE);
    if !path.is_file() {
        return Ok(StoreCounts::default());
    }
    let mut conn = open_read_only(&path).await?;
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite%' ORDER BY name",
    )
    .fetch_all(&mut conn)
    .await
    .map_err(|e| format!("cannot read the store: {e}"))?;
    let mut counts = StoreCounts::default();
    for table in tables {
        // Names come from sqlite_master, quoted as identifiers.
        let sql = format!("SELECT COUNT(*) FROM \"{}\"", table.replace('"', "\"\""));
        let rows: i64 = sqlx::query_scalar(&sql)
            .fetch_one(&mut conn)
            .await
            .map_err(|e| format!("cannot count {table}: {e}"))?;
        counts.tables.insert(table, rows);
    }
    if counts.tables.contains_key("turns") {
        let statuses: Vec<(String, i64)> =
            sqlx::query_as("SELECT status, COUNT(*) FROM turns GROUP BY status ORDER BY status")
                .fetch_all(&mut conn)
                .await
                .map_err(|e| format!("cannot read turn statuses: {e}"))?;
        counts.turn_statuses = statuses.into_iter().collect();
    }
    let _ = conn.close().await;
    Ok(counts)
}

#[derive(Debug, Default, Serialize)]
pub struct StoreCounts {
    pub tables: std::collections::BTreeMap<String, i64>,
    pub turn_statuses: std::collections::BTreeMap<String, i64>,
}

async fn schema_version(path: &Path) -> Result<Option<i64>, String> {
    let mut conn = open_read_only(path).await?;
    let table: Option<String> = sqlx::query_scalar(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations'",
    )
    .fetch_optional(&mut conn)
    .await
    .map_err(|e| format!("cannot read the store: {e}"))?;
    let version = match table {
        Some(_) => {
            sqlx::query_scalar("SELECT MAX(version) FROM _sqlx_migrations WHERE success = 1")
                .fetch_one(&mut conn)
                .await
                .map_err(|e| format!("cannot read the store's migrations: {e}"))?
        }
        None => None,
    };
    let _ = conn.close().await;
    Ok(version)
}
