use crate::page_data::provide_page_data;
use crate::{
    api::load_workbench,
    components::{ErrorNotice, SignIn, WorkbenchLayout},
};
use leptos::prelude::*;
use leptos_meta::Link;

/// Every page's frame: the workbench for a signed-in browser, sign-in help
/// for anyone else (who sees no data at all).
#[component]
pub fn Home() -> AnyView {
    let workbench = Resource::new(|| (), |_| load_workbench());
    provide_page_data();
    view! {
        <Link rel="manifest" href="/manifest.webmanifest" />
        <Suspense fallback=|| view! { <p class="loading">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match workbench.await {
                    Ok(Some(workbench)) => view! { <WorkbenchLayout workbench /> }.into_any(),
                    Ok(None) => view! { <SignIn /> }.into_any(),
                    Err(error) => view! { <ErrorNotice message=error.to_string() /> }.into_any(),
                }
            })}
        </Suspense>
    }
    .into_any()
}
