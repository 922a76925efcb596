//! Paired devices. Their session secrets are not here: tower-sessions keeps
//! the sessions (hashed) in `device_sessions`.

use super::StoreError;
use sqlx::SqlitePool;

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct DeviceRow {
    pub id: String,
    pub name: String,
    pub user_agent: Option<String>,
    pub created_at: String,
    pub last_seen_at: String,
    pub last_address: Option<String>,
}

const COLUMNS: &str = "id, name, user_agent, created_at, last_seen_at, last_address";

pub async fn insert(pool: &SqlitePool, row: &DeviceRow) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO devices (id, name, user_agent, created_at, last_seen_at, last_address)
         VALUES (?, ?, ?, ?, ?, ?)",
    )
    .bind(&row.id)
    .bind(&row.name)
    .bind(&row.user_agent)
    .bind(&row.created_at)
    .bind(&row.last_seen_at)
    .bind(&row.last_address)
    .execute(pool)
    .await?;
    Ok(())
}

pub async fn list(pool: &SqlitePool) -> Result<Vec<DeviceRow>, StoreError> {
    Ok(sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM devices ORDER BY created_at DESC, id DESC"
    ))
    .fetch_all(pool)
    .await?)
}

pub async fn get(pool: &SqlitePool, id: &str) -> Result<Option<DeviceRow>, StoreError> {
    Ok(
        sqlx::query_as(&format!("SELECT {COLUMNS} FROM devices WHERE id = ?"))
            .bind(id)
            .fetch_optional(pool)
            .await?,
    )
}

/// Returns false when no such device exists.
pub async fn rename(pool: &SqlitePool, id: &str, name: &str) -> Result<bool, StoreError> {
    let done = sqlx::query("UPDATE devices SET name = ? WHERE id = ?")
        .bind(name)
        .bind(id)
        .execute(pool)
        .await?;
    Ok(done.rows_affected() == 1)
}

pub async fn touch(
    pool: &SqlitePool,
    id: &str,
    seen_at: &str,
    address: &str,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE devices SET last_seen_at = ?, last_address = ? WHERE id = ?")
        .bind(seen_at)
        .bind(address)
        .bind(id)
        .execute(pool)
        .await?;
    Ok(())
}

/// Returns false when no such device exists. Its session rows go when the
/// session is next presented (it no longer names a device) or expires.
pub async fn delete(pool: &SqlitePool, id: &str) -> Result<bool, StoreError> {
    let done = sqlx::query("DELETE FROM devices WHERE id = ?")
        .bind(id)
        .execute(pool)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Sessions past their expiry (tower-sessions stores it as RFC 3339 text).
pub async fn delete_expired_sessions(pool: &SqlitePool) -> Result<u64, StoreError> {
    let done =
        sqlx::query("DELETE FROM device_sessions WHERE datetime(expiry_date) < datetime('now')")
            .execute(pool)
            .await?;
    Ok(done.rows_affected())
}
