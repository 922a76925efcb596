//! Event frames as an SSE body. Written by hand rather than with axum's
//! `Sse` so that every frame already waiting is sent in one body chunk: a
//! replay of 100,000 events becomes a few hundred writes, not 100,000.
//! Frame data is a compact JSON envelope (serde_json never writes a raw
//! line break), so each event is one `data:` line.

use crate::runtime::stream::Frame;
use axum::{
    body::{Body, Bytes},
    http::header,
    response::{IntoResponse, Response},
};
use std::{convert::Infallible, time::Duration};
use tokio::sync::mpsc;

/// A comment line when nothing was sent for this long, so proxies and
/// clients see the connection alive.
const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// How many bytes of waiting frames one chunk gathers at most.
const CHUNK: usize = 64 * 1024;

/// Frames as SSE: `id:` the seq, `event:` the name, `data:` the envelope,
/// a keep-alive comment after 15 s without an event.
pub fn response(frames: mpsc::Receiver<Frame>) -> Response {
    // One interval for the stream's life, not a timer per frame: a tick
    // sends a comment only when no frame went out since the last one.
    let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + KEEP_ALIVE, KEEP_ALIVE);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let state = (frames, ticks, false);
    let body = futures::stream::unfold(state, |(mut frames, mut ticks, mut sent)| async move {
        let first = loop {
            tokio::select! {
                frame = frames.recv() => match frame {
                    Some(frame) => break frame,
                    None => return None,
                },
                _ = ticks.tick() => {
                    if !std::mem::take(&mut sent) {
                        let comment = Bytes::from_static(b":\n\n");
                        return Some((Ok::<_, Infallible>(comment), (frames, ticks, false)));
                    }
                }
            }
        };
        let mut chunk = Vec::with_capacity(first.data.len() + 64);
        write(&mut chunk, &first);
        while chunk.len() < CHUNK {
            match frames.try_recv() {
                Ok(frame) => write(&mut chunk, &frame),
                Err(_) => break,
            }
        }
        sent = true;
        Some((Ok(Bytes::from(chunk)), (frames, ticks, sent)))
    });
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(body),
    )
        .into_response()
}

fn write(chunk: &mut Vec<u8>, frame: &Frame) {
    use std::io::Write as _;
    let _ = write!(chunk, "id: {}\nevent: ", frame.seq); // writing to a Vec cannot fail
    chunk.extend_from_slice(frame.event.as_bytes());
    chunk.extend_from_slice(b"\ndata: ");
    chunk.extend_from_slice(frame.data.as_bytes());
    chunk.extend_from_slice(b"\n\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_is_one_id_event_and_data_line() {
        let mut chunk = Vec::new();
        let frame = Frame {
            seq: 42,
            event: "item.delta".into(),
            data: r#"{"seq":42}"#.into(),
        };
        write(&mut chunk, &frame);
        assert_eq!(
            String::from_utf8(chunk).unwrap(),
            "id: 42\nevent: item.delta\ndata: {\"seq\":42}\n\n"
        );
    }
}
