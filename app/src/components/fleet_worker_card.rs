use super::{row_error, row_pending, ErrorLine, RowAction};
use crate::{api::FleetCommand, protocol::FleetWorker};
use leptos::prelude::*;
use leptos_router::components::A;

/// One worker in the fleet grid: status, branch, what it changed, its
/// answer, its thread, and interrupt or restart.
#[component]
pub fn FleetWorkerCard(worker: FleetWorker, act: RowAction<FleetCommand>) -> impl IntoView {
    let id = worker.worker_id.clone();
    let pending = row_pending(act, id.clone());
    let status = worker.status.as_str();
    let running = !worker.status.is_final();
    let (label, command) = if running {
        ("Interrupt", FleetCommand::InterruptWorker)
    } else {
        ("Restart", FleetCommand::RestartWorker)
    };
    let stat = worker.diff_stat.clone().map(|stat| {
        view! {
            <p class="muted" data-test="worker-diff-stat">
                {format!("{} file(s) changed, +{} −{}", stat.files_changed, stat.insertions, stat.deletions)}
            </p>
        }
    });
    let outcome = worker
        .error
        .clone()
        .map(|error| view! { <p class="error">{error}</p> }.into_any())
        .or_else(|| {
            worker.answer.clone().map(|answer| {
                view! { <p class="answer" data-test="worker-answer">{answer}</p> }.into_any()
            })
        });
    view! {
        <li class="fleet-worker card" data-test="fleet-worker" data-worker=worker.worker_id.clone() data-status=status>
            <div class="background-facts">
                <span class="muted">{format!("#{}", worker.index)}</span>
                <span class=format!("status-chip status-{status}") data-test="worker-status">{status}</span>
                {(worker.attempts > 1).then(|| view! { <span class="muted">{format!("attempt {}", worker.attempts)}</span> })}
            </div>
            <p class="background-title">{worker.prompt.clone()}</p>
            {worker.branch.clone().map(|branch| view! { <p><code data-test="worker-branch">{branch}</code></p> })}
            {stat}
            {outcome}
            <div class="actions">
                {worker.thread_id.clone().map(|thread| view! {
                    <A href=format!("/threads/{thread}") attr:data-test="worker-thread">"Open thread"</A>
                })}
                <button type="button" class=if running { "danger" } else { "" } data-test="worker-action"
                    disabled=pending
                    on:click=move |_| { act.dispatch((id.clone(), command)); }>
                    {label}
                </button>
            </div>
            <ErrorLine error=row_error(act, worker.worker_id.clone()) />
        </li>
    }
}
