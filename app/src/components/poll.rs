//! Pages that show work running in the background stay current: a counter
//! that resources key on, bumped by a timer and, where the runtime has an
//! event stream for the page, by its events as they happen.

use leptos::{
    prelude::*,
    wasm_bindgen::{closure::Closure, JsCast},
    web_sys::EventSource,
};
use std::{cell::Cell, rc::Rc, time::Duration};

/// Events that arrive together refetch once, this long after the first.
const COALESCE: Duration = Duration::from_millis(150);

/// A counter that goes up every `every` while the page is open in a
/// browser (the server renders once, at 0). Resources keyed on it refetch:
/// how the tasks and automations pages stay live.
pub fn poll_every(every: Duration) -> RwSignal<u32> {
    let tick = RwSignal::new(0u32);
    Effect::new(move |_| {
        let bump = move || {
            tick.try_update(|n| *n = n.wrapping_add(1));
        };
        if let Ok(handle) = set_interval_with_handle(bump, every) {
            on_cleanup(move || handle.clear());
        }
    });
    tick
}

/// Bumps `tick` soon after the SSE stream at `url()` (none: no stream)
/// brings any of `names`
/// (named events each need a listener) and whenever it (re)connects, while
/// the page is open in a browser; a new URL reopens it. The session cookie
/// is the credential. The URL should ask for no replay (`replay_limit=0`):
/// the page loads the present itself, and a reconnect refetches it.
pub fn refresh_on_events(
    url: impl Fn() -> Option<String> + 'static,
    names: &'static [&'static str],
    tick: RwSignal<u32>,
) {
    Effect::new(move |_| {
        let Some(Ok(source)) = url().map(|url| EventSource::new(&url)) else {
            return;
        };
        let waiting = Rc::new(Cell::new(false));
        let refresh = Closure::<dyn FnMut()>::new(move || {
            if waiting.replace(true) {
                return;
            }
            let waiting = waiting.clone();
            set_timeout(
                move || {
                    waiting.set(false);
                    tick.try_update(|n| *n = n.wrapping_add(1));
                },
                COALESCE,
            );
        });
        for name in names {
            let _ = source.add_event_listener_with_callback(name, refresh.as_ref().unchecked_ref());
        }
        source.set_onopen(Some(refresh.as_ref().unchecked_ref()));
        // Kept with the source and dropped after it closes.
        let held = StoredValue::new_local(Some((source, refresh)));
        on_cleanup(move || {
            if let Some(Some((source, _refresh))) = held.try_update_value(Option::take) {
                source.close();
            }
        });
    });
}
