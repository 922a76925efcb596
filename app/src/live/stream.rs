//! The selected thread's event stream in the browser: an EventSource on
//! `/v1/threads/{id}/events?since_seq=<cursor>` (the session cookie is the
//! credential; no token reaches the page). Events apply in order; a gap
//! reloads the snapshot; a dropped connection reopens from the newest
//! applied seq after a growing delay, unless the session has ended (an
//! EventSource cannot see a 401, so a failed stream asks the server once).
//! Leaving the thread closes it, so events of a thread no longer selected
//! are never applied.

use super::state::{Applied, Connection, Live};
use crate::{
    protocol::{EventEnvelope, EventName},
    session::SessionEnded,
};
use leptos::{
    prelude::*,
    wasm_bindgen::{closure::Closure, JsCast},
    web_sys::{EventSource, MessageEvent},
};
use std::{cell::RefCell, rc::Rc};

const MAX_BACKOFF_MS: i32 = 10_000;

struct Stream {
    source: Option<EventSource>,
    backoff_ms: i32,
    closed: bool,
}

/// What the page does with the stream besides applying it.
#[derive(Clone, Copy)]
pub struct Hooks {
    /// Runs for each new thread.updated, turn.completed, approval.required
    /// and user_input.required (the rail refreshes, notifications go out).
    pub on_notable: Callback<EventEnvelope>,
    pub ended: Option<SessionEnded>,
}

/// Whether `hooks.on_notable` hears of an event.
fn notable(name: &str) -> bool {
    [
        EventName::ThreadUpdated,
        EventName::TurnCompleted,
        EventName::ApprovalRequired,
        EventName::UserInputRequired,
    ]
    .iter()
    .any(|n| n.as_str() == name)
}

/// Follows `live`'s thread until the owner is cleaned up.
pub fn follow(live: Live, hooks: Hooks) {
    let stream = Rc::new(RefCell::new(Stream {
        source: None,
        backoff_ms: 250,
        closed: false,
    }));
    open(live, stream.clone(), hooks);
    // Back online (a phone changing networks, waking up): reconnect now
    // rather than at the end of the backoff.
    let on_online = {
        let stream = stream.clone();
        Closure::<dyn FnMut()>::new(move || {
            stream.borrow_mut().backoff_ms = 250;
            open(live, stream.clone(), hooks);
        })
    };
    let _ = window().add_event_listener_with_callback("online", on_online.as_ref().unchecked_ref());
    let handle = StoredValue::new_local((stream, on_online));
    on_cleanup(move || {
        handle.try_with_value(|(stream, on_online)| {
            let _ = window()
                .remove_event_listener_with_callback("online", on_online.as_ref().unchecked_ref());
            let mut stream = stream.borrow_mut();
            stream.closed = true;
            if let Some(source) = stream.source.take() {
                source.close();
            }
        });
    });
}

/// Opens the stream from the cursor, unless it is open already (a retry
/// timer and the `online` event may both ask) or was closed for good.
fn open(live: Live, stream: Rc<RefCell<Stream>>, hooks: Hooks) {
    if stream.borrow().closed || stream.borrow().source.is_some() {
        return;
    }
    let id = live.thread.with_untracked(|t| t.id.clone());
    let url = format!(
        "/v1/threads/{id}/events?since_seq={}",
        live.cursor.get_untracked()
    );
    let Ok(source) = EventSource::new(&url) else {
        return retry(live, stream, hooks);
    };
    let on_event = {
        let stream = stream.clone();
        Closure::<dyn FnMut(MessageEvent)>::new(move |message: MessageEvent| {
            let Some(data) = message.data().as_string() else {
                return;
            };
            let Ok(event) = serde_json::from_str::<EventEnvelope>(&data) else {
                return;
            };
            stream.borrow_mut().backoff_ms = 250;
            live.connection.set(Connection::Live);
            match live.apply(&event) {
                Applied::Gap => resync(live, stream.clone(), hooks),
                Applied::Stale => {
                    resync(live, stream.clone(), hooks);
                    hooks.on_notable.run(event);
                }
                Applied::Fresh if notable(&event.event) => hooks.on_notable.run(event),
                _ => {}
            }
        })
    };
    // SSE named events need a listener each: one per name the runtime emits.
    for name in EventName::ALL {
        let _ = source
            .add_event_listener_with_callback(name.as_str(), on_event.as_ref().unchecked_ref());
    }
    on_event.forget();
    let on_open = Closure::<dyn FnMut()>::new(move || live.connection.set(Connection::Live));
    source.set_onopen(Some(on_open.as_ref().unchecked_ref()));
    on_open.forget();
    let on_error = {
        let stream = stream.clone();
        Closure::<dyn FnMut()>::new(move || {
            // The browser would retry with the URL's old cursor: reopen ours.
            if let Some(source) = stream.borrow_mut().source.take() {
                source.close();
            }
            check_then_retry(live, stream.clone(), hooks);
        })
    };
    source.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    stream.borrow_mut().source = Some(source);
}

/// A stream that failed because the session ended must not be retried
/// forever: one authenticated round trip tells the two apart.
fn check_then_retry(live: Live, stream: Rc<RefCell<Stream>>, hooks: Hooks) {
    live.connection.set(Connection::Reconnecting);
    leptos::task::spawn_local(async move {
        match crate::api::check_connection().await {
            Err(error) if error.status == 401 => session_ended(live, &stream, hooks, &error),
            _ => retry(live, stream, hooks),
        }
    });
}

/// The session is gone: the stream stays closed for good (not even coming
/// back online reopens it) and the page says so once.
fn session_ended(
    live: Live,
    stream: &Rc<RefCell<Stream>>,
    hooks: Hooks,
    error: &crate::error::ServiceError,
) {
    stream.borrow_mut().closed = true;
    live.connection.set(Connection::Ended);
    if let Some(ended) = hooks.ended {
        ended.note(error);
    }
}

fn retry(live: Live, stream: Rc<RefCell<Stream>>, hooks: Hooks) {
    if stream.borrow().closed {
        return;
    }
    live.connection.set(Connection::Reconnecting);
    let delay = {
        let mut s = stream.borrow_mut();
        let delay = s.backoff_ms;
        s.backoff_ms = (s.backoff_ms * 2).min(MAX_BACKOFF_MS);
        delay
    };
    set_timeout(
        move || open(live, stream, hooks),
        std::time::Duration::from_millis(delay as u64),
    );
}

/// Reloads the snapshot after a gap (or a change only the runtime can
/// resolve), then reopens from its latest seq.
fn resync(live: Live, stream: Rc<RefCell<Stream>>, hooks: Hooks) {
    if let Some(source) = stream.borrow_mut().source.take() {
        source.close();
    }
    let id = live.thread.with_untracked(|t| t.id.clone());
    leptos::task::spawn_local(async move {
        match crate::api::load_thread(id, None).await {
            Ok(page) => {
                live.reset_page(page);
                open(live, stream, hooks);
            }
            Err(error) if error.status == 401 => session_ended(live, &stream, hooks, &error),
            Err(_) => retry(live, stream, hooks),
        }
    });
}
