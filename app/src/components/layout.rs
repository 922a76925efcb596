use super::{MissedAlerts, PairPhone, Rail, SessionEndedNotice};
use crate::{notify::Notifier, protocol::Workbench};
use leptos::prelude::*;
use leptos_router::{
    components::{Outlet, A},
    hooks::use_location,
};

/// The signed-in workbench: top bar, thread rail, and the selected page.
#[component]
pub fn WorkbenchLayout(workbench: Workbench) -> impl IntoView {
    let workspace = workbench.workspace.clone();
    provide_context(workbench.clone());
    Notifier::provide();
    // On a narrow screen a thread takes the whole width; "Threads" (a plain
    // link home, so it works without JavaScript) brings the list back.
    let location = use_location();
    let on_thread = move || location.pathname.with(|path| path.starts_with("/threads/"));
    view! {
        // rel="external": the browser, not the router, follows it (and so
        // moves focus to <main>).
        <a class="skip-link" href="#main" rel="external">"Skip to content"</a>
        <header class="topbar">
            <A href="/" attr:class="brand">"codewhale"</A>
            <span class="chip" title="codewhale version">{format!("v{}", workbench.codewhale_version)}</span>
            <nav class="topnav" aria-label="Pages">
                <A href="/">"Threads"</A>
                <A href="/tasks">"Tasks"</A>
                <A href="/automations">"Automations"</A>
                <A href="/fleet">"Fleet"</A>
                <A href="/skills">"Skills"</A>
                <A href="/mcp">"MCP"</A>
                <A href="/sessions">"Sessions"</A>
                <A href="/usage">"Usage"</A>
                {workbench.mobile.then(|| view! { <A href="/devices">"Devices"</A> })}
            </nav>
            <span class="chip muted" title="Default workspace">{workspace}</span>
            {workbench.mobile.then(|| view! { <PairPhone /> })}
        </header>
        <SessionEndedNotice />
        <MissedAlerts />
        <div class="workbench" class:on-thread=on_thread>
            <Rail />
            <main class="main" id="main" tabindex="-1">
                <Outlet />
            </main>
        </div>
    }
    .into_any()
}
