//! The selected thread's event stream in the browser: an EventSource on
//! `/v1/threads/{id}/events?since_seq=<cursor>` (the session cookie is the
//! credential; no token reaches the page). Events apply in order; a gap
//! reloads the snapshot; a dropped connection reopens from the newest
//! applied seq after a growing delay. Leaving the thread closes it, so
//! events of a thread no longer selected are never applied.

use super::state::{Applied, Connection, Live};
use crate::protocol::{EventEnvelope, EventName};
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

/// Follows `live`'s thread until the owner is cleaned up. `on_turn_end`
/// runs after each turn.completed (the rail refreshes then).
pub fn follow(live: Live, on_turn_end: Callback<()>) {
    let stream = Rc::new(RefCell::new(Stream {
        source: None,
        backoff_ms: 250,
        closed: false,
    }));
    open(live, stream.clone(), on_turn_end);
    let handle = StoredValue::new_local(stream);
    on_cleanup(move || {
        handle.try_with_value(|stream| {
            let mut stream = stream.borrow_mut();
            stream.closed = true;
            if let Some(source) = stream.source.take() {
                source.close();
            }
        });
    });
}

fn open(live: Live, stream: Rc<RefCell<Stream>>, on_turn_end: Callback<()>) {
    if stream.borrow().closed {
        return;
    }
    let id = live.thread.with_untracked(|t| t.id.clone());
    let url = format!(
        "/v1/threads/{id}/events?since_seq={}",
        live.cursor.get_untracked()
    );
    let Ok(source) = EventSource::new(&url) else {
        return retry(live, stream, on_turn_end);
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
                Applied::Gap => resync(live, stream.clone(), on_turn_end),
                Applied::Fresh if event.event == EventName::TurnCompleted.as_str() => {
                    on_turn_end.run(())
                }
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
            retry(live, stream.clone(), on_turn_end);
        })
    };
    source.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    stream.borrow_mut().source = Some(source);
}

fn retry(live: Live, stream: Rc<RefCell<Stream>>, on_turn_end: Callback<()>) {
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
        move || open(live, stream, on_turn_end),
        std::time::Duration::from_millis(delay as u64),
    );
}

/// Reloads the snapshot after a gap, then reopens from its latest seq.
fn resync(live: Live, stream: Rc<RefCell<Stream>>, on_turn_end: Callback<()>) {
    if let Some(source) = stream.borrow_mut().source.take() {
        source.close();
    }
    let id = live.thread.with_untracked(|t| t.id.clone());
    leptos::task::spawn_local(async move {
        match crate::api::load_thread(id).await {
            Ok(detail) => {
                live.reset(detail);
                open(live, stream, on_turn_end);
            }
            Err(_) => retry(live, stream, on_turn_end),
        }
    });
}
