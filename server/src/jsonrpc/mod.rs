//! `app-server --stdio`: newline-delimited JSON-RPC 2.0 on stdin/stdout,
//! driving an in-process `Runtime` (no listener). Nothing but protocol
//! reaches stdout; logs go to stderr.
//!
//! Requests run concurrently (a `prompt/run` does not hold up a
//! `thread/approve`); replies and notifications leave through one queue, so
//! lines never interleave. A subscription's events follow its reply.

pub mod methods;
mod reader;
mod session;
pub mod wire;

use crate::{http::router::MAX_BODY_BYTES, runtime::Runtime};
use reader::{Line, LineReader};
use serde_json::Value;
use session::Session;
use std::{sync::Arc, time::Duration};
use tokio::{
    io::{AsyncRead, AsyncWrite, AsyncWriteExt},
    sync::{mpsc, oneshot},
    task::JoinSet,
};
use wire::{RpcError, INVALID_REQUEST, PARSE_ERROR};

/// How long requests still running after turns were interrupted may take.
const DRAIN: Duration = Duration::from_secs(30);
/// Requests handled at once; reading stdin waits beyond that, so a client
/// that writes without reading cannot pile up work.
const IN_FLIGHT: usize = 256;
/// Calls in one batch (each runs at once; the replies are one line).
pub const MAX_BATCH: usize = 100;

/// Serves one client until it sends `shutdown`, closes its input, or the
/// process is interrupted. Running turns are interrupted before returning.
pub async fn serve<R, W>(runtime: Arc<Runtime>, config_view: Value, input: R, output: W)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (out, lines) = mpsc::channel::<String>(1024);
    let writer = tokio::spawn(write_lines(lines, output));
    let session = Session::new(runtime.clone(), out, config_view);
    let mut stopping = session.stopping();
    let mut input = read_lines(input);
    let mut requests = JoinSet::new();
    let permits = Arc::new(tokio::sync::Semaphore::new(IN_FLIGHT));
    // End of input lets requests already read finish (a piped `prompt/run`);
    // `shutdown` and Ctrl-C end running turns first.
    let mut interrupt_first = true;
    loop {
        let line = tokio::select! {
            line = input.recv() => line.unwrap_or(Line::End),
            _ = stopping.changed() => break,
            _ = tokio::signal::ctrl_c() => {
                tracing::info!("interrupted; ending running turns");
                break;
            }
            // Reap finished requests so the set stays small.
            Some(_) = requests.join_next(), if !requests.is_empty() => continue,
        };
        match line {
            Line::End => {
                interrupt_first = false;
                break;
            }
            Line::Failed(error) => {
                tracing::warn!(%error, "reading stdin failed");
                break;
            }
            Line::TooLong => {
                let error = RpcError::new(
                    INVALID_REQUEST,
                    format!("a request may be at most {} MiB", MAX_BODY_BYTES >> 20),
                );
                session
                    .send(wire::failure(Value::Null, error).to_string())
                    .await;
            }
            Line::Text(text) if text.iter().all(u8::is_ascii_whitespace) => {}
            Line::Text(text) => {
                let Ok(permit) = permits.clone().acquire_owned().await else {
                    break;
                };
                let session = session.clone();
                requests.spawn(async move {
                    handle_line(&session, &text).await;
                    drop(permit);
                });
            }
        }
    }
    if interrupt_first {
        runtime.interrupt_all().await;
    } else {
        // Input ended: requests already read still answer, however long
        // their turns take (a client that wants them cut sends `shutdown`).
        while requests.join_next().await.is_some() {}
    }
    let drained = tokio::time::timeout(DRAIN, async {
        while requests.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        tracing::warn!("requests still running at shutdown were abandoned");
        requests.abort_all();
    }
    runtime.interrupt_all().await;
    session.end_subscriptions();
    runtime.stop_streams();
    drop(session);
    // A client that stopped reading must not keep the process alive.
    if tokio::time::timeout(Duration::from_secs(5), writer)
        .await
        .is_err()
    {
        tracing::warn!("stdout is not being read; exiting without the last lines");
    }
}

/// Lines from a task of their own: reading a line is not cancel-safe, and
/// the serve loop waits on other things too.
fn read_lines<R: AsyncRead + Unpin + Send + 'static>(input: R) -> mpsc::Receiver<Line> {
    let (lines, received) = mpsc::channel(64);
    tokio::spawn(async move {
        let mut reader = LineReader::new(input, MAX_BODY_BYTES);
        loop {
            let line = reader.next().await;
            let last = matches!(line, Line::End | Line::Failed(_));
            if lines.send(line).await.is_err() || last {
                return;
            }
        }
    });
    received
}

async fn handle_line(session: &Arc<Session>, text: &[u8]) {
    let value: Value = match serde_json::from_slice(text) {
        Ok(value) => value,
        Err(error) => {
            let error = RpcError::new(PARSE_ERROR, format!("not JSON: {error}"));
            session
                .send(wire::failure(Value::Null, error).to_string())
                .await;
            return;
        }
    };
    match value {
        Value::Array(batch) if batch.is_empty() => {
            let error = RpcError::new(INVALID_REQUEST, "an empty batch");
            session
                .send(wire::failure(Value::Null, error).to_string())
                .await;
        }
        Value::Array(batch) => {
            let answers =
                futures::future::join_all(batch.into_iter().map(|value| answer(session, value)))
                    .await;
            let (replies, afters): (Vec<_>, Vec<_>) = answers.into_iter().unzip();
            let replies: Vec<Value> = replies.into_iter().flatten().collect();
            // A batch of notifications gets no reply at all.
            if !replies.is_empty() {
                session.send(Value::Array(replies).to_string()).await;
            }
            afters.into_iter().flatten().for_each(|after| {
                let _ = after.send(());
            });
        }
        value => {
            let (reply, after) = answer(session, value).await;
            if let Some(reply) = reply {
                session.send(reply.to_string()).await;
            }
            if let Some(after) = after {
                let _ = after.send(());
            }
        }
    }
}

/// One request's reply (none for a notification) and what to signal once
/// that reply is queued.
async fn answer(
    session: &Arc<Session>,
    value: Value,
) -> (Option<Value>, Option<oneshot::Sender<()>>) {
    let call = match wire::call(value) {
        Ok(call) => call,
        Err(refused) => {
            let (id, error) = *refused;
            return (Some(wire::failure(id, error)), None);
        }
    };
    let outcome = methods::call(session, &call.method, call.params).await;
    let Some(id) = call.id else {
        // A notification: run, answer nothing (a subscription still starts).
        return (None, outcome.ok().and_then(|o| o.after));
    };
    match outcome {
        Ok(outcome) => (Some(wire::success(id, outcome.result)), outcome.after),
        Err(error) => (Some(wire::failure(id, error)), None),
    }
}

async fn write_lines<W: AsyncWrite + Unpin>(mut lines: mpsc::Receiver<String>, mut output: W) {
    while let Some(line) = lines.recv().await {
        let written = async {
            output.write_all(line.as_bytes()).await?;
            output.write_all(b"\n").await?;
            if lines.is_empty() {
                output.flush().await?;
            }
            std::io::Result::Ok(())
        };
        if let Err(error) = written.await {
            tracing::warn!(%error, "writing stdout failed; the client is gone");
            return;
        }
    }
    let _ = output.flush().await;
}
