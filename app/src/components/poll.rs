use leptos::prelude::*;

/// A counter that goes up every `every` while the page is open in a
/// browser (the server renders once, at 0). Resources keyed on it refetch:
/// how the tasks and automations pages stay live.
pub fn poll_every(every: std::time::Duration) -> RwSignal<u32> {
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
