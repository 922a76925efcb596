use super::{NewThread, ThreadRow};
use crate::page_data::PageData;
use leptos::prelude::*;
use leptos_router::{
    components::A,
    hooks::{use_navigate, use_query_map},
};

/// The thread list: search (debounced), archived filter, new thread.
#[component]
pub fn Rail() -> impl IntoView {
    let query = use_query_map();
    let search = move || query.read().get("q").unwrap_or_default();
    let archived = move || query.read().get("archived").is_some_and(|v| v == "1");
    let threads = expect_context::<PageData>().threads;
    view! {
        <nav class="rail" aria-label="Threads">
            <NewThread />
            <SearchBox value=Signal::derive(search) archived=Signal::derive(archived) />
            <Transition fallback=|| view! { <p class="muted">"Loading threads…"</p> }>
                {move || Suspend::new(async move {
                    match threads.await {
                        Ok(rows) if rows.is_empty() => view! {
                            <p class="muted" data-test="no-threads">"No threads yet. Create one above."</p>
                        }.into_any(),
                        Ok(rows) => view! {
                            <ul class="threads" data-test="thread-list">
                                {rows.into_iter().map(|row| view! { <ThreadRow row /> }).collect_view()}
                            </ul>
                        }.into_any(),
                        Err(error) => view! { <p class="error" role="alert">{error.to_string()}</p> }.into_any(),
                    }
                })}
            </Transition>
            <A href=move || if archived() { "?".to_string() } else { "?archived=1".to_string() } attr:class="filter">
                {move || if archived() { "Show active threads" } else { "Show archived threads" }}
            </A>
        </nav>
    }
    .into_any()
}

/// A GET form to the page it is on (works without JavaScript); with it,
/// typing navigates after a pause instead of on every key, and Enter at
/// once, in the app. A plain `<form>`: the router's `Form` cost ~4 KB br.
#[component]
fn SearchBox(value: Signal<String>, archived: Signal<bool>) -> AnyView {
    let navigate = use_navigate();
    let pending = StoredValue::new(None::<leptos::prelude::TimeoutHandle>);
    let search = move |text: &str| {
        if let Some(handle) = pending.get_value() {
            handle.clear();
        }
        let mut url = format!("?q={}", encode(text));
        if archived.get_untracked() {
            url.push_str("&archived=1");
        }
        url
    };
    let on_input = {
        let navigate = navigate.clone();
        move |ev: leptos::ev::Event| {
            let url = search(&event_target_value(&ev));
            let navigate = navigate.clone();
            let handle = set_timeout_with_handle(
                move || navigate(&url, Default::default()),
                std::time::Duration::from_millis(250),
            );
            pending.set_value(handle.ok());
        }
    };
    let input = NodeRef::<leptos::html::Input>::new();
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let text = input.get_untracked().map(|i| i.value()).unwrap_or_default();
        navigate(&search(&text), Default::default());
    };
    view! {
        <form method="GET" on:submit=on_submit>
            <label class="visually-hidden" for="thread-search">"Search threads"</label>
            <input id="thread-search" type="search" name="q" placeholder="Search threads" node_ref=input
                prop:value=value on:input=on_input autocomplete="off" />
            {move || archived.get().then(|| view! { <input type="hidden" name="archived" value="1" /> })}
        </form>
    }
    .into_any()
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
