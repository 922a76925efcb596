//! `/fleet`: fleet runs and a form to start one; `/fleet/:id`: a run's
//! workers as a grid with live status, each opening its thread, with stop,
//! interrupt, restart and worktree cleanup. Both refresh while open; a
//! run's page as its event stream tells it.

use crate::{
    api::{fleet_action, load_fleet_run, load_fleet_runs, load_workbench, FleetCommand},
    components::{
        poll_every, refresh_on_events, relative_time, row_action, row_error, row_pending,
        ErrorLine, ErrorNotice, FleetForm, FleetWorkerCard, RowAction,
    },
    protocol::{fleet_events, FleetRun, FleetRunStatus},
};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::{components::A, hooks::use_params_map};

const REFRESH: std::time::Duration = std::time::Duration::from_secs(2);
const SLOW_REFRESH: std::time::Duration = std::time::Duration::from_secs(5);

#[component]
pub fn Fleet() -> impl IntoView {
    let tick = poll_every(REFRESH);
    let runs = Resource::new(move || tick.get(), |_| load_fleet_runs());
    let workbench = Resource::new(|| (), |_| load_workbench());
    view! {
        <Title text="Fleet · codewhale" />
        <section class="background-page" aria-labelledby="fleet-title">
            <h1 id="fleet-title">"Fleet"</h1>
            <p class="muted">
                "Several agents at once on one workspace, each in its own git worktree and "
                "branch. When a worker ends, what it changed is committed on its branch."
            </p>
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    let workspace = workbench.await.ok().flatten().map(|w| w.workspace).unwrap_or_default();
                    view! { <FleetForm workspace /> }
                })}
            </Transition>
            <Transition fallback=|| view! { <p class="muted">"Loading runs…"</p> }>
                {move || Suspend::new(async move {
                    match runs.await {
                        Ok(list) if list.is_empty() => view! {
                            <p class="muted" data-test="no-fleet-runs">"No fleet runs yet."</p>
                        }.into_any(),
                        Ok(list) => view! {
                            <ul class="background-list" data-test="fleet-run-list">
                                {list.into_iter().map(|run| view! { <RunRow run /> }).collect_view()}
                            </ul>
                        }.into_any(),
                        Err(error) => view! { <ErrorNotice message=format!("Could not load fleet runs: {error}") /> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

fn status_name(status: FleetRunStatus) -> &'static str {
    match status {
        FleetRunStatus::Running => "running",
        FleetRunStatus::Stopped => "stopped",
        FleetRunStatus::Completed => "completed",
        FleetRunStatus::Failed => "failed",
    }
}

/// "2 running, 1 queued, 3 completed": the non-zero counts.
fn counts_in_words(run: &FleetRun) -> String {
    let c = &run.counts;
    let parts: Vec<String> = [
        (c.running, "running"),
        (c.queued, "queued"),
        (c.completed, "completed"),
        (c.failed, "failed"),
        (c.interrupted, "interrupted"),
        (c.cancelled, "cancelled"),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{n} {what}"))
    .collect();
    parts.join(", ")
}

#[component]
fn RunRow(run: FleetRun) -> impl IntoView {
    let status = status_name(run.status);
    view! {
        <li class="background-item" data-test="fleet-run" data-run=run.id.clone() data-status=status>
            <div class="background-facts">
                <span class=format!("status-chip status-{status}")>{status}</span>
                <A href=format!("/fleet/{}", run.id)>{format!("{} workers in {}", run.worker_count, run.workspace)}</A>
                <span class="muted">{counts_in_words(&run)}</span>
                <span class="muted">
                    "Started " <time datetime=run.created_at.clone()>{relative_time(&run.created_at)}</time>
                </span>
            </div>
        </li>
    }
}

#[component]
pub fn FleetRunPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.with(|p| p.get("id").unwrap_or_default());
    // The run's event stream refreshes the grid as workers move; the poll
    // stays, slower, for what the stream does not carry (a worker's turn
    // counts) and for a stream that could not be opened.
    let tick = poll_every(SLOW_REFRESH);
    refresh_on_events(
        move || {
            // Only a run id goes into the URL (the route's parameter is the user's).
            let id = id();
            let run_id = id
                .strip_prefix("fleet_")
                .is_some_and(|hex| !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()));
            run_id.then(|| format!("/v1/fleet/runs/{id}/events?replay_limit=0"))
        },
        &fleet_events::ALL,
        tick,
    );
    let detail = Resource::new(move || (id(), tick.get()), |(id, _)| load_fleet_run(id));
    let act = row_action(fleet_action);
    Effect::new(move |_| {
        if let Some(Ok(())) = act.value().get() {
            tick.update(|n| *n = n.wrapping_add(1));
        }
    });
    view! {
        <Title text="Fleet run · codewhale" />
        <section class="background-page" aria-labelledby="fleet-run-title">
            <p><A href="/fleet">"← All fleet runs"</A></p>
            <Transition fallback=|| view! { <p class="muted">"Loading the run…"</p> }>
                {move || Suspend::new(async move {
                    match detail.await {
                        Ok(detail) => {
                            let run = detail.run;
                            let status = status_name(run.status);
                            view! {
                                <h1 id="fleet-run-title">"Fleet run"</h1>
                                <div class="background-facts" data-test="fleet-run-summary" data-status=status>
                                    <span class=format!("status-chip status-{status}") data-test="fleet-run-status">{status}</span>
                                    <span>{run.workspace.clone()}</span>
                                    <span class="muted" data-test="fleet-run-counts">{counts_in_words(&run)}</span>
                                    <span class="muted">{format!("{} at once", run.max_parallel)}</span>
                                </div>
                                {run.base_commit.clone().map(|commit| view! {
                                    <p class="muted">"Branches from " <code>{commit.chars().take(12).collect::<String>()}</code>
                                        {run.cleaned_up.then_some(" · worktrees removed, branches kept")}</p>
                                })}
                                <RunActions run=run.clone() act />
                                <ul class="fleet-grid" data-test="fleet-grid">
                                    {detail.workers.into_iter().map(|worker| view! { <FleetWorkerCard worker act /> }).collect_view()}
                                </ul>
                            }.into_any()
                        }
                        Err(error) => view! { <ErrorNotice message=format!("Could not load the fleet run: {error}") /> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

/// Stop while something runs; remove the worktrees once all ended.
#[component]
fn RunActions(run: FleetRun, act: RowAction<FleetCommand>) -> impl IntoView {
    let id = run.id.clone();
    let pending = row_pending(act, id.clone());
    let live = run.status == FleetRunStatus::Running;
    let cleanable = !live && run.base_commit.is_some() && !run.cleaned_up;
    let stop_id = id.clone();
    view! {
        <div class="actions">
            {live.then(|| view! {
                <button type="button" class="danger" data-test="stop-fleet" disabled=pending
                    on:click=move |_| { act.dispatch((stop_id.clone(), FleetCommand::StopRun)); }>"Stop run"</button>
            })}
            {cleanable.then(|| view! {
                <button type="button" data-test="clean-up-fleet" disabled=pending
                    on:click=move |_| { act.dispatch((id.clone(), FleetCommand::CleanUpRun)); }>"Remove worktrees"</button>
            })}
        </div>
        <ErrorLine error=row_error(act, run.id.clone()) />
    }
}
