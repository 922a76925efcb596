//! `/mobile`: the phone-first face of the workbench (served only when
//! codewhale runs with `--mobile`). Paired phones get the thread list and
//! threads; anyone else learns how to pair.

use crate::page_data::provide_page_data;
use crate::{
    api::load_workbench,
    components::{ErrorNotice, MobileLayout, MobileSignIn, NotificationSettings},
};
use leptos::prelude::*;
use leptos_meta::{Link, Meta};

/// The frame of every `/mobile` page, like `Home` for the desktop.
#[component]
pub fn MobileHome() -> AnyView {
    let workbench = Resource::new(|| (), |_| load_workbench());
    provide_page_data();
    view! {
        <Link rel="manifest" href="/mobile.webmanifest" />
        <Link rel="apple-touch-icon" href="/icons/icon-192.png" />
        <Meta name="theme-color" content="#1f6feb" />
        <Suspense fallback=|| view! { <p class="loading">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match workbench.await {
                    Ok(Some(workbench)) => view! { <MobileLayout workbench /> }.into_any(),
                    Ok(None) => view! { <MobileSignIn /> }.into_any(),
                    Err(error) => view! { <ErrorNotice message=error.to_string() /> }.into_any(),
                }
            })}
        </Suspense>
    }
    .into_any()
}

/// `/mobile` itself: below the thread list, what this phone can do.
#[component]
pub fn MobileStart() -> impl IntoView {
    view! {
        // The page's one level-one heading (the thread list above has none).
        <section class="mobile-start" aria-labelledby="mobile-start-title">
            <h1 id="mobile-start-title" class="visually-hidden">"This phone"</h1>
            <NotificationSettings />
        </section>
    }
}
