use crate::api::check_connection;
use leptos::prelude::*;

/// Round trip through the authenticated server-function path. The button only
/// does something once the wasm bundle has hydrated the page.
#[component]
pub fn ConnectionCheck() -> impl IntoView {
    let check = Action::new(|_: &()| async move {
        let started = now_ms();
        check_connection().await.map(|_| now_ms() - started)
    });
    let status = move || match check.value().get() {
        None if check.pending().get() => "Checking…".to_string(),
        None => "Not checked yet.".to_string(),
        Some(Ok(elapsed)) => format!("Connected: the server answered in {elapsed:.0} ms."),
        Some(Err(error)) => format!("Connection check failed: {error}"),
    };
    view! {
        <section class="card" aria-labelledby="connection-title">
            <h2 id="connection-title">"Connection"</h2>
            <button type="button" on:click=move |_| { check.dispatch(()); }>
                "Check connection"
            </button>
            <p role="status" data-test="connection-status">{status}</p>
        </section>
    }
}

#[cfg(feature = "hydrate")]
fn now_ms() -> f64 {
    leptos::prelude::window()
        .performance()
        .map(|p| p.now())
        .unwrap_or_default()
}

#[cfg(not(feature = "hydrate"))]
fn now_ms() -> f64 {
    0.0
}
