use crate::components::{ConnectionCheck, NotificationSettings};
use crate::page_data::PageData;
use leptos::prelude::*;

/// `/`: what to do first. Says so plainly when no provider can run a turn.
#[component]
pub fn NoThread() -> AnyView {
    let providers = expect_context::<PageData>().providers;
    view! {
        <section class="empty" aria-labelledby="start-title">
            <h1 id="start-title">"Start a thread"</h1>
            <p>"Pick a thread from the list, or create one with " <strong>"New thread"</strong>
               ". Each thread works in one workspace and keeps its whole history."</p>
            <Suspense fallback=|| ()>
                {move || Suspend::new(async move {
                    let ready = providers.await.map(|p| p.iter().any(|p| p.ready)).unwrap_or(true);
                    (!ready).then(|| view! {
                        <p class="notice warn" role="status" data-test="no-provider">
                            "No provider configured: set DEEPSEEK_API_KEY or add a provider to config.toml."
                        </p>
                    })
                })}
            </Suspense>
            <ConnectionCheck />
            <NotificationSettings />
        </section>
    }
    .into_any()
}
