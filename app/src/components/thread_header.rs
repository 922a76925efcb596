use super::{error_line::failure, instructions_chip::InstructionsChip, ErrorLine};
use crate::page_data::RailRefresh;
use crate::{
    api::{fork_thread, update_thread},
    live::{Connection, Live},
    protocol::{Mode, PatchThread},
    surface::Surface,
};
use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

/// Title, facts as chips, and the thread's actions.
#[component]
pub fn ThreadHeader() -> AnyView {
    let live = expect_context::<Live>();
    let thread = live.thread;
    let title =
        move || thread.with(|t| t.title.clone().unwrap_or_else(|| "Untitled thread".into()));
    let posture = move || {
        thread.with(|t| match (t.mode, t.auto_approve) {
            (Mode::Yolo, _) => "Full access",
            (_, true) => "Auto-approve",
            _ => "Ask",
        })
    };
    view! {
        <header class="thread-header">
            <div class="title-line">
                <h1 id="thread-title" data-test="thread-title">{title}</h1>
                <ConnectionBadge state=live.connection />
            </div>
            <ul class="chips" aria-label="Thread facts">
                <li class="chip" title="Workspace">{move || thread.with(|t| t.workspace.clone().unwrap_or_default())}</li>
                <li class="chip" title="Model" data-test="model">{move || live.effective_model.get().unwrap_or_else(|| "no model available".into())}</li>
                <li class="chip" title="Mode">{move || thread.with(|t| t.mode.as_str())}</li>
                <li class="chip" title="Permissions" data-test="posture">{posture}</li>
                <InstructionsChip />
            </ul>
            <ThreadActions />
        </header>
    }
    .into_any()
}

#[component]
fn ConnectionBadge(state: RwSignal<Connection>) -> AnyView {
    let text = move || match state.get() {
        Connection::Connecting => "connecting",
        Connection::Live => "live",
        Connection::Reconnecting => "reconnecting…",
        Connection::Ended => "session ended",
    };
    view! { <span class="connection" role="status" data-state=text data-test="connection">{text}</span> }
    .into_any()
}

/// Rename, archive / unarchive, fork.
#[component]
fn ThreadActions() -> AnyView {
    let live = expect_context::<Live>();
    let refresh = expect_context::<RailRefresh>();
    let navigate = use_navigate();
    let surface = Surface::current();
    let id = move || live.thread.with_untracked(|t| t.id.clone());
    let patch = Action::new(move |patch: &PatchThread| update_thread(id(), patch.clone()));
    let fork = Action::new(move |_: &()| fork_thread(id()));
    let name = RwSignal::new(String::new());
    let dialog = NodeRef::<leptos::html::Dialog>::new();
    Effect::new(move |_| {
        if let Some(Ok(thread)) = patch.value().get() {
            live.thread.set(thread);
            refresh.bump();
        }
    });
    Effect::new(move |_| {
        if let Some(Ok(thread)) = fork.value().get() {
            refresh.bump();
            navigate(&surface.thread_href(&thread.id), Default::default());
        }
    });
    let archived = move || live.thread.with(|t| t.archived);
    // A modal <dialog>: the browser keeps focus inside it, Esc closes it,
    // and focus returns to the Rename button afterwards.
    let open_rename = move |_| {
        name.set(live.thread.with(|t| t.title.clone().unwrap_or_default()));
        if let Some(dialog) = dialog.get_untracked() {
            let _ = dialog.show_modal();
        }
    };
    let close = move || {
        if let Some(dialog) = dialog.get_untracked() {
            dialog.close();
        }
    };
    // The dialog closes once the new title is saved; on failure it stays
    // open with the typed title and the error.
    let retitle = Action::new(move |title: &String| {
        let patch = PatchThread {
            title: Some(title.clone()),
            ..Default::default()
        };
        update_thread(id(), patch)
    });
    Effect::new(move |_| {
        if let Some(Ok(thread)) = retitle.value().get() {
            close();
            live.thread.set(thread);
            refresh.bump();
        }
    });
    let rename = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        retitle.dispatch(name.get());
    };
    view! {
        <div class="actions">
            <button type="button" data-test="rename" on:click=open_rename>"Rename"</button>
            <button type="button" data-test="archive" on:click=move |_| { patch.dispatch(PatchThread { archived: Some(!archived()), ..Default::default() }); }>
                {move || if archived() { "Unarchive" } else { "Archive" }}
            </button>
            <button type="button" data-test="fork" on:click=move |_| { fork.dispatch(()); }>"Fork"</button>
        </div>
        <dialog class="rename" node_ref=dialog aria-labelledby="rename-title">
            <form class="stack" on:submit=rename>
                <h2 id="rename-title">"Rename thread"</h2>
                <label>"Title" <input bind:value=name autofocus maxlength="200" /></label>
                <div class="actions">
                    <button type="submit" class="primary" disabled=move || retitle.pending().get()>"Save"</button>
                    <button type="button" on:click=move |_| close()>"Cancel"</button>
                </div>
                <ErrorLine error=failure(retitle) />
            </form>
        </dialog>
        <ErrorLine error=failure(patch) />
        <ErrorLine error=failure(fork) />
    }
    .into_any()
}
