use super::{failure, relative_time, run_in_words, ErrorLine};
use crate::{
    api::{automation_action, AutomationCommand, AutomationCard},
    protocol::{AutomationRun, AutomationState, RunTrigger},
};
use leptos::prelude::*;
use leptos_router::components::A;

/// One automation: its schedule in words, next run, latest runs, and the
/// buttons that run it now, pause or resume it, and delete it.
#[component]
pub fn AutomationItem(card: AutomationCard, changed: Callback<()>) -> impl IntoView {
    let AutomationCard { automation, runs } = card;
    let id = StoredValue::new(automation.id.clone());
    let act = Action::new_local(move |action: &AutomationCommand| {
        automation_action(id.get_value(), *action)
    });
    Effect::new(move |_| {
        if let Some(Ok(())) = act.value().get() {
            changed.run(());
        }
    });
    let confirming = RwSignal::new(false);
    let paused = automation.state == AutomationState::Paused;
    let next = match &automation.next_run_at {
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
                <button type="button" data-test="run-automation" disabled=move || act.pending().get()
                    on:click=move |_| { act.dispatch(AutomationCommand::Run); }>"Run now"</button>
                <button type="button" data-test="toggle-automation" disabled=move || act.pending().get()
                    on:click=move |_| { act.dispatch(toggle); }>{if paused { "Resume" } else { "Pause" }}</button>
                <Show when=move || !confirming.get()
                    fallback=move || view! {
                        <button type="button" class="danger" data-test="confirm-delete-automation"
                            on:click=move |_| { act.dispatch(AutomationCommand::Delete); }>"Delete now"</button>
                        <button type="button" on:click=move |_| confirming.set(false)>"Keep"</button>
                    }>
                    <button type="button" class="danger" data-test="delete-automation"
                        on:click=move |_| confirming.set(true)>"Delete"</button>
                </Show>
            </div>
            <ErrorLine error=failure(act) />
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
