use crate::components::{ErrorNotice, ThreadView};
use crate::page_data::PageData;
use leptos::prelude::*;

/// `/threads/:id`: the snapshot first (server-rendered), then live events.
#[component]
pub fn ThreadPage() -> AnyView {
    let detail = expect_context::<PageData>().detail;
    view! {
        <Suspense fallback=|| view! { <p class="loading">"Loading thread…"</p> }>
            {move || Suspend::new(async move {
                match detail.await {
                    Ok(Some(page)) => view! { <ThreadView page /> }.into_any(),
                    Ok(None) => ().into_any(),
                    Err(error) => view! { <ErrorNotice message=error.to_string() /> }.into_any(),
                }
            })}
        </Suspense>
    }
    .into_any()
}
