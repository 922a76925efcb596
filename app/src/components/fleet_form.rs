use super::{failure, ErrorLine};
use crate::api::{start_fleet, FleetDraft};
use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

/// "New fleet": a workspace, one worker per line, how many at once, and
/// worktrees or not. Opens the run once it started.
#[component]
pub fn FleetForm(workspace: String) -> impl IntoView {
    let workspace = RwSignal::new(workspace);
    let prompts = RwSignal::new(String::new());
    let parallel = RwSignal::new("2".to_string());
    let shared = RwSignal::new(false);
    let auto_approve = RwSignal::new(false);
    let start = Action::new(move |draft: &FleetDraft| start_fleet(draft.clone()));
    let navigate = use_navigate();
    Effect::new(move |_| {
        if let Some(Ok(id)) = start.value().get() {
            navigate(&format!("/fleet/{id}"), Default::default());
        }
    });
    let workers = move || prompts.with(|p| p.lines().filter(|l| !l.trim().is_empty()).count());
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        start.dispatch(FleetDraft {
            workspace: workspace.get_untracked(),
            prompts: prompts.get_untracked(),
            max_parallel: parallel.get_untracked().trim().parse().ok(),
            shared: shared.get_untracked(),
            auto_approve: auto_approve.get_untracked(),
        });
    };
    view! {
        <details class="card automation-form">
            <summary class="button primary" data-test="new-fleet">"New fleet"</summary>
            <form on:submit=submit class="stack" aria-label="New fleet">
                <label>"Workspace" <input name="workspace" bind:value=workspace required data-test="fleet-workspace" /></label>
                <label>"Workers: one prompt per line"
                    <textarea name="prompts" bind:value=prompts required rows="4" data-test="fleet-prompts"></textarea>
                </label>
                <p class="muted">{move || format!("{} worker(s)", workers())}</p>
                <label>"At once" <input name="max_parallel" type="number" min="1" max="16" bind:value=parallel data-test="fleet-parallel" /></label>
                <label class="check">
                    <input type="checkbox" bind:checked=shared />
                    " Share the workspace (otherwise each worker gets its own git worktree and branch, from HEAD)"
                </label>
                <label class="check">
                    <input type="checkbox" bind:checked=auto_approve />
                    " Auto-approve writes and commands (otherwise each worker waits for you)"
                </label>
                <button type="submit" class="primary" data-test="start-fleet"
                    disabled=move || start.pending().get()>"Start fleet"</button>
                <ErrorLine error=failure(start) />
            </form>
        </details>
    }
}
