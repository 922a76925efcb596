//! A settled message's Markdown. The server renders it into the page and
//! hydration keeps that HTML as it is (tachys leaves `inner_html` alone when
//! hydrating), so the browser renders Markdown only for a message it shows
//! afresh: one that completes live, one fetched with older items, one on a
//! thread opened inside the app. Its renderer is a chunk of the bundle
//! (`markdown::to_html_in_chunk`), fetched the first time; until it is
//! there, or if it cannot be fetched, the message reads as plain text.

use crate::live::Entry;
use leptos::prelude::*;

pub fn settled_message(entry: Entry) -> AnyView {
    #[cfg(not(feature = "hydrate"))]
    {
        let html = entry.text.with_untracked(|t| crate::markdown::to_html(t));
        view! { <div class="md" inner_html=html></div> }.into_any()
    }
    #[cfg(feature = "hydrate")]
    {
        let hydrating = Owner::current_shared_context().is_some_and(|sc| sc.during_hydration());
        if hydrating {
            return view! { <div class="md" inner_html=String::new()></div> }.into_any();
        }
        let html = RwSignal::new(None::<String>);
        let text = entry.text.get_untracked();
        leptos::task::spawn_local(async move {
            if let Ok(rendered) = crate::markdown::to_html_in_chunk(text).await {
                // The item may be gone by then (another thread opened).
                html.try_set(Some(rendered));
            }
        });
        (move || match html.get() {
            Some(html) => view! { <div class="md" inner_html=html></div> }.into_any(),
            None => view! { <p class="plain">{entry.text.get_untracked()}</p> }.into_any(),
        })
        .into_any()
    }
}
