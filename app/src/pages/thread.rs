use crate::{
    api::load_thread,
    components::{ErrorNotice, ThreadView},
};
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

/// `/threads/:id`: the snapshot first (server-rendered), then live events.
#[component]
pub fn ThreadPage() -> AnyView {
    let params = use_params_map();
    let id = move || params.read().get("id").unwrap_or_default();
    let detail = Resource::new(id, load_thread);
    view! {
        <Suspense fallback=|| view! { <p class="loading">"Loading thread…"</p> }>
            {move || Suspend::new(async move {
                match detail.await {
                    Ok(detail) => view! { <ThreadView detail /> }.into_any(),
                    Err(error) => view! { <ErrorNotice message=error.to_string() /> }.into_any(),
                }
            })}
        </Suspense>
    }
    .into_any()
}
