//! The global event sequence. Numbers are handed out from memory inside a
//! reserved block, so a number is never reused: not after a rolled-back
//! append (memory moves on) and not after a crash (the next process starts
//! above the committed bound).
//!
//! Several processes may share one store (`codewhale web` and an `acp` or
//! `--stdio` process). Readers follow a thread by `seq > cursor`, so numbers
//! must rise in commit order across all of them: every write transaction
//! starts `IMMEDIATE` (holding SQLite's write lock until commit) and first
//! moves past the newest committed seq, whoever wrote it.

use super::StoreError;
use sqlx::SqliteConnection;

const BLOCK: i64 = 65_536;
/// Room guaranteed to every write transaction.
pub const MAX_APPENDS_PER_WRITE: i64 = 4_096;

pub struct SeqAllocator {
    next: i64,
    reserved_through: i64,
}

impl SeqAllocator {
    /// The allocator, and the newest committed seq.
    pub async fn load(conn: &mut SqliteConnection) -> Result<(Self, i64), StoreError> {
        let (reserved, max_seq): (i64, Option<i64>) = sqlx::query_as(
            "SELECT reserved_through, (SELECT MAX(seq) FROM events) FROM seq_reservation WHERE id = 1",
        )
        .fetch_one(conn)
        .await?;
        let newest = max_seq.unwrap_or(0);
        // Everything up to the committed reservation may have been handed out
        // by an earlier process; start above it.
        let floor = reserved.max(newest);
        let allocator = Self {
            next: floor + 1,
            reserved_through: floor,
        };
        Ok((allocator, newest))
    }

    /// Called first in a write transaction that holds the write lock: moves
    /// past what other processes committed, and makes sure the next
    /// MAX_APPENDS_PER_WRITE numbers are reserved (the reservation commits
    /// with the transaction; numbers of one that rolls back were never seen).
    pub async fn claim(&mut self, conn: &mut SqliteConnection) -> Result<(), StoreError> {
        let newest: Option<i64> = sqlx::query_scalar("SELECT MAX(seq) FROM events")
            .fetch_one(&mut *conn)
            .await?;
        self.next = self.next.max(newest.unwrap_or(0) + 1);
        if self.next + MAX_APPENDS_PER_WRITE <= self.reserved_through {
            return Ok(());
        }
        let committed: i64 =
            sqlx::query_scalar("SELECT reserved_through FROM seq_reservation WHERE id = 1")
                .fetch_one(&mut *conn)
                .await?;
        let through = committed.max(self.next) + BLOCK;
        sqlx::query("UPDATE seq_reservation SET reserved_through = ?1 WHERE id = 1")
            .bind(through)
            .execute(&mut *conn)
            .await?;
        self.reserved_through = through;
        Ok(())
    }

    pub fn allocate(&mut self) -> Result<i64, StoreError> {
        if self.next > self.reserved_through {
            return Err(StoreError::Corrupt(format!(
                "more than {MAX_APPENDS_PER_WRITE} events in one write"
            )));
        }
        let seq = self.next;
        self.next += 1;
        Ok(seq)
    }
}
