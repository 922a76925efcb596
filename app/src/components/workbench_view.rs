use super::ConnectionCheck;
use crate::protocol::Workbench;
use leptos::prelude::*;

/// The signed-in page: the facts of the running process.
#[component]
pub fn WorkbenchView(workbench: Workbench) -> impl IntoView {
    view! {
        <header class="topbar">
            <span class="brand">"codewhale"</span>
            <span class="chip" title="codewhale version">{format!("v{}", workbench.codewhale_version)}</span>
        </header>
        <main class="page" aria-labelledby="workbench-title">
            <h1 id="workbench-title">"Workbench"</h1>
            <dl class="facts">
                <dt>"Workspace"</dt>
                <dd><code>{workbench.workspace}</code></dd>
                <dt>"Serving on"</dt>
                <dd><code>{workbench.bind_address}</code></dd>
            </dl>
            <ConnectionCheck />
        </main>
    }
}
