//! `/tasks`: the queue of turns that run with no client attached (created
//! with `POST /v1/tasks` or by an automation), live, with cancel.

use crate::{
    api::{cancel_task, load_tasks},
    components::{
        poll_every, relative_time, row_action, row_error, row_pending, ErrorLine, ErrorNotice,
        RowAction,
    },
    protocol::{TaskRecord, TaskStatus},
};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::components::A;

/// How often the open page refreshes the queue.
const REFRESH: std::time::Duration = std::time::Duration::from_secs(2);

#[component]
pub fn Tasks() -> impl IntoView {
    let tick = poll_every(REFRESH);
    let tasks = Resource::new(move || tick.get(), |_| load_tasks());
    let cancel = row_action(|id, ()| cancel_task(id));
    Effect::new(move |_| {
        if let Some(Ok(())) = cancel.value().get() {
            tick.update(|n| *n = n.wrapping_add(1));
        }
    });
    view! {
        <Title text="Tasks · codewhale" />
        <section class="background-page" aria-labelledby="tasks-title">
            <h1 id="tasks-title">"Tasks"</h1>
            <p class="muted">
                "Turns that run with nobody watching, two at a time by default: queued with "
                <code>"POST /v1/tasks"</code>" or by an automation. Approvals they need wait "
                "in their thread like any other."
            </p>
            <Transition fallback=|| view! { <p class="muted">"Loading tasks…"</p> }>
                {move || Suspend::new(async move {
                    match tasks.await {
                        Ok(list) if list.is_empty() => view! {
                            <p class="muted" data-test="no-tasks">"No tasks yet."</p>
                        }.into_any(),
                        Ok(list) => view! {
                            <ul class="background-list" data-test="task-list">
                                {list.into_iter().map(|task| view! { <TaskRow task cancel /> }).collect_view()}
                            </ul>
                        }.into_any(),
                        Err(error) => view! { <ErrorNotice message=format!("Could not load tasks: {error}") /> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn TaskRow(task: TaskRecord, cancel: RowAction<()>) -> impl IntoView {
    let id = task.id.clone();
    let pending = row_pending(cancel, id.clone());
    let status = task.status.as_str();
    let outcome = task
        .error
        .clone()
        .map(|error| view! { <p class="error">{error}</p> }.into_any())
        .or_else(|| {
            task.answer
                .clone()
                .map(|answer| view! { <p class="answer">{clip(&answer, 280)}</p> }.into_any())
        });
    view! {
        <li class="background-item" data-test="task" data-task=task.id.clone() data-status=status>
            <div class="background-facts">
                <span class=format!("status-chip status-{status}") data-test="task-status">{status}</span>
                <span class="background-title">{clip(&task.prompt, 120)}</span>
                <span class="muted">
                    "Queued " <time datetime=task.created_at.clone()>{relative_time(&task.created_at)}</time>
                </span>
            </div>
            {outcome}
            <div class="actions">
                {task.thread_id.clone().map(|thread| view! {
                    <A href=format!("/threads/{thread}") attr:data-test="task-thread">"Open thread"</A>
                })}
                {(!task.status.is_final()).then(|| view! {
                    <button type="button" class="danger" data-test="cancel-task"
                        disabled=pending
                        on:click=move |_| { cancel.dispatch((id.clone(), ())); }>
                        {if task.status == TaskStatus::Running { "Stop" } else { "Cancel" }}
                    </button>
                })}
            </div>
            <ErrorLine error=row_error(cancel, task.id.clone()) />
        </li>
    }
}

/// At most `max` characters, with an ellipsis when cut.
pub fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}
