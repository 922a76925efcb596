use super::{MissedAlerts, Rail, SessionEndedNotice};
use crate::{notify::Notifier, protocol::Workbench, surface::Surface};
use leptos::prelude::*;
use leptos_router::{
    components::{Outlet, A},
    hooks::use_location,
};

/// The phone layout: the workbench's own rail and thread view, one at a
/// time, under a slim bar. Only the links (`Surface::Mobile`) and the
/// styles (`.mobile-app`) differ from the desktop.
#[component]
pub fn MobileLayout(workbench: Workbench) -> impl IntoView {
    provide_context(workbench);
    provide_context(Surface::Mobile);
    Notifier::provide();
    let location = use_location();
    let on_thread = move || {
        location
            .pathname
            .with(|path| Surface::thread_in_path(path).is_some())
    };
    view! {
        <div class="mobile-app">
        <header class="topbar mobile-bar">
            <Show when=on_thread>
                <A href="/mobile" attr:class="back" attr:data-test="back">"‹ Threads"</A>
            </Show>
            <A href="/mobile" attr:class="brand">"codewhale"</A>
        </header>
        <SessionEndedNotice />
        <MissedAlerts />
        <div class="workbench mobile" class:on-thread=on_thread>
            <Rail />
            <main class="main" id="main" tabindex="-1">
                <Outlet />
            </main>
        </div>
        </div>
    }
}
