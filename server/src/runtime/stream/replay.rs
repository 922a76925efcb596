//! Reading history for a stream: a batch of events as one packed row
//! (`store::events::packed_after`), turned into frames here, or row by row
//! when the packed form cannot be trusted.
//!
//! Batches are sized by bytes as well as by count: the next read asks for
//! as many events as PACKED_BYTES holds at the size of the biggest event
//! of the last batch, at most twice the last count and at most
//! PACKED_BATCH. A thread whose events suddenly grow can still fill one
//! batch with PACKED_BATCH big events (the row-by-row read held BATCH of
//! any size); a cap computed in SQL cost a third of the replay's speed
//! (BENCHMARKS.md, issue 18).

use super::{frame, Frame, BATCH};
use crate::store::{self, Store};
use protocol::EVENT_SCHEMA_VERSION;
use std::{fmt::Write as _, sync::Arc};

/// The most events one packed read asks for.
pub(super) const PACKED_BATCH: i64 = 1024;
/// About how many bytes of events one packed read should hold.
const PACKED_BYTES: usize = 1 << 20;
/// The first packed read of a stream.
pub const FIRST_LIMIT: i64 = 128;

/// A batch of the store's events as frames.
pub struct Batch {
    pub frames: Vec<Frame>,
    /// How many events the next packed read asks for.
    pub next_limit: i64,
    /// No event follows these (yet).
    pub caught_up: bool,
    /// The seq of an event whose payload is not JSON: the frames stop
    /// before it.
    pub corrupt: Option<i64>,
    /// Read packed (false: row by row); the tests tell the paths apart.
    #[cfg_attr(not(test), allow(dead_code))]
    pub packed: bool,
}

/// The next events after `position`: up to `limit` read as one packed
/// row, or up to `limit` (at most BATCH) row by row when that cannot be
/// used (a payload that is not compact JSON, a batch too big for one
/// SQLite string, records that do not check out).
pub async fn next_batch(
    store: &Store,
    thread_id: &str,
    position: i64,
    limit: i64,
) -> Result<Batch, store::StoreError> {
    match store::events::packed_after(store.pool(), thread_id, position, limit).await {
        Ok(Some(packed)) => match unpack(&packed.text, position) {
            Some((frames, biggest)) if frames.len() == packed.count => {
                let grown = limit.saturating_mul(2).min(PACKED_BATCH);
                let fits = (PACKED_BYTES / biggest.max(1)) as i64;
                return Ok(Batch {
                    next_limit: fits.clamp(1, grown),
                    caught_up: packed.last,
                    frames,
                    corrupt: None,
                    packed: true,
                });
            }
            _ => tracing::debug!(
                position,
                "a packed batch did not check out; reading row by row"
            ),
        },
        Ok(None) => tracing::debug!(position, "a payload is not JSON; reading row by row"),
        Err(error) => tracing::debug!(%error, "a packed read failed; reading row by row"),
    }
    // Smaller next time: whatever went wrong may have been the size.
    let next_limit = (limit / 2).max(1);
    let limit = limit.min(BATCH);
    let events = store::events::after(store.pool(), thread_id, position, limit).await?;
    let caught_up = (events.len() as i64) < limit;
    let mut frames = Vec::with_capacity(events.len());
    let mut previous = position;
    for event in &events {
        let Ok(frame) = frame(event, previous) else {
            return Ok(Batch {
                frames,
                next_limit,
                caught_up,
                corrupt: Some(event.seq),
                packed: false,
            });
        };
        previous = event.seq;
        frames.push(frame);
    }
    Ok(Batch {
        frames,
        next_limit,
        caught_up,
        corrupt: None,
        packed: false,
    })
}

/// Frames from a packed batch, and the size of its biggest record: the
/// envelope's head (which holds the previous seq, known only here) and the
/// tail SQLite wrote. `None` unless every record is `seq US event US tail`
/// with rising seqs, a tail that names the same event, and no line break
/// (an SSE `data:` line and a JSON-RPC line must stay one line; serde
/// never writes one, so only a payload stored by something else could).
pub(super) fn unpack(text: &str, mut previous: i64) -> Option<(Vec<Frame>, usize)> {
    if text.is_empty() {
        return Some((Vec::new(), 0));
    }
    // One buffer for every envelope: each frame's data is then a single
    // allocation (its `Arc<str>`).
    let mut data = String::new();
    let mut biggest = 0;
    let frames = text
        .split('\u{1e}')
        .map(|record| {
            biggest = biggest.max(record.len());
            let (seq, rest) = record.split_once('\u{1f}')?;
            let (event, tail) = rest.split_once('\u{1f}')?;
            let seq: i64 = seq.parse().ok().filter(|&seq| seq > previous)?;
            // The raw name is the one field SQLite does not quote: it must
            // match its quoted copy, which JSON escaping protects.
            let named = tail
                .strip_prefix(r#","event":""#)
                .and_then(|t| t.strip_prefix(event))
                .is_some_and(|t| t.starts_with('"'));
            if !named || tail.contains(['\n', '\r']) {
                return None;
            }
            data.clear();
            write!(
                data,
                r#"{{"schema_version":{EVENT_SCHEMA_VERSION},"seq":{seq},"previous_seq":{previous}"#
            )
            .ok()?;
            data.push_str(tail);
            previous = seq;
            Some(Frame {
                seq,
                event: event.to_string(),
                data: Arc::from(data.as_str()),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some((frames, biggest))
}
