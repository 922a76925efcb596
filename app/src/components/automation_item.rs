use super::{relative_time, row_error, row_pending, run_in_words, ErrorLine, RowAction};
use crate::{
    api::{AutomationCard, AutomationCommand},
    protocol::{AutomationRun, AutomationState, RunTrigger},
};
use leptos::prelude::*;
use leptos_router::components::A;

/// One automation: its schedule in words, next run, latest runs, and the
/// buttons that run it now, pause or resume it, and delete it. `act` and
/// `confirming` (the id whose delete awaits a second click) are the page's.
#[component]
pub fn AutomationItem(
    card: AutomationCard,
    act: RowAction<AutomationCommand>,
    confirming: RwSignal<Option<String>>,
) -> impl IntoView {
    let AutomationCard { automation, runs } = card;
    let id = StoredValue::new(automation.id.clone());
    let pending = row_pending(act, automation.id.clone());
    let run = move |command: AutomationCommand| {
        act.dispatch((id.get_value(), command));
    };
    let asking = move || confirming.with(|c| c.as_deref() == Some(id.get_value().as_str()));
    let paused = automation.state == AutomationState::Paused;
    let next = match &automation.next_run_local {
        Some(at) => format!("Next run: {}", run_in_words(at)),
        None => "Paused: no runs until resumed".to_string(),
    };
    let state = if paused { "paused" } else { "active" };
    let toggle = if paused {
        AutomationCommand::Resume
    } else {
        AutomationCommand::Pause
    };
    let history = if runs.is_empty() {
        view! { <p class="muted">"No runs yet."</p> }.into_any()
    } else {
        view! {
            <ul class="run-list" data-test="automation-runs">
                {runs.into_iter().map(|run| view! { <RunRow run /> }).collect_view()}
            </ul>
        }
        .into_any()
    };
    view! {
        <li class="background-item" data-test="automation" data-automation=automation.id.clone() data-state=state>
            <div class="background-facts">
                <span class=format!("status-chip status-{state}")>{state}</span>
                <span class="background-title" data-test="automation-title">{automation.name.clone()}</span>
                <span class="muted">{automation.description.clone()}</span>
            </div>
            <p class="muted" data-test="automation-next">{next}</p>
            {history}
            <div class="actions">
                <button type="button" data-test="run-automation" disabled=pending
                    on:click=move |_| run(AutomationCommand::Run)>"Run now"</button>
                <button type="button" data-test="toggle-automation" disabled=pending
                    on:click=move |_| run(toggle)>{if paused { "Resume" } else { "Pause" }}</button>
                <Show when=move || !asking()
                    fallback=move || view! {
                        <button type="button" class="danger" data-test="confirm-delete-automation"
                            disabled=pending
                            on:click=move |_| run(AutomationCommand::Delete)>"Delete now"</button>
                        <button type="button" on:click=move |_| confirming.set(None)>"Keep"</button>
                    }>
                    <button type="button" class="danger" data-test="delete-automation"
                        on:click=move |_| confirming.set(Some(id.get_value()))>"Delete"</button>
                </Show>
            </div>
            <ErrorLine error=row_error(act, automation.id.clone()) />
        </li>
    }
}

#[component]
fn RunRow(run: AutomationRun) -> impl IntoView {
    let trigger = match run.trigger {
        RunTrigger::Schedule => "scheduled",
        RunTrigger::CatchUp => "catch-up",
        RunTrigger::Manual => "by hand",
    };
    let (status, detail) = match (&run.task, &run.skipped) {
        (_, Some(reason)) => ("skipped", Some(reason.clone())),
        (Some(task), None) => (task.status.as_str(), None),
        (None, None) => ("cleared", None),
    };
    let thread = run.task.as_ref().and_then(|task| task.thread_id.clone());
    view! {
        <li class="run" data-test="automation-run" data-status=status>
            <span class=format!("status-chip status-{status}")>{status}</span>
            <span>{trigger}" · "<time datetime=run.created_at.clone()>{relative_time(&run.created_at)}</time></span>
            {detail.map(|reason| view! { <span class="muted">{reason}</span> })}
            {thread.map(|thread| view! {
                <A href=format!("/threads/{thread}") attr:data-test="run-thread">"Open thread"</A>
            })}
        </li>
    }
}
