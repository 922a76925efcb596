use super::{error_line::failure, ErrorLine};
use crate::{
    api::{edit_last_prompt, fork_at_message, retry_last_turn},
    live::{Entry, Live},
    page_data::RailRefresh,
    protocol::ItemKind,
    surface::Surface,
};
use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

/// Under a user message: "Fork from here" on every one, Retry and Edit on
/// the last (they take its turn back and send the prompt again), hidden
/// while a turn runs. Desktop only: the phone's view is read-only.
#[component]
pub fn MessageActions(entry: Entry) -> AnyView {
    let live = expect_context::<Live>();
    // Its turn was undone (by undo, retry or edit): marked, and not rerun.
    let undone = Memo::new(move |_| {
        let turn = entry.record.with_untracked(|r| r.turn_id.clone());
        live.turns
            .with(|turns| turns.iter().any(|t| t.id == turn && t.undone_at.is_some()))
    });
    let badge = move || {
        undone
            .get()
            .then(|| view! { <span class="badge" data-test="message-undone">"Undone"</span> })
    };
    if Surface::current() != Surface::Desktop {
        return badge.into_any();
    }
    let last = expect_context::<LastUserMessage>().0;
    let refresh = expect_context::<RailRefresh>();
    let navigate = use_navigate();
    let item_id = entry.id.get_value();
    let thread = move || live.thread.with_untracked(|t| t.id.clone());
    let idle = Memo::new(move |_| live.active_turn().is_none());
    let is_last = {
        let id = item_id.clone();
        Memo::new(move |_| last.with(|last| last.as_deref() == Some(id.as_str())))
    };
    let fork = Action::new(move |item: &String| fork_at_message(thread(), item.clone()));
    Effect::new(move |_| {
        if let Some(Ok(id)) = fork.value().get() {
            refresh.bump();
            navigate(&Surface::Desktop.thread_href(&id), Default::default());
        }
    });
    let retry = Action::new(move |_: &()| retry_last_turn(thread()));
    let edit = Action::new(move |prompt: &String| edit_last_prompt(thread(), prompt.clone()));
    let editing = RwSignal::new(false);
    let draft = RwSignal::new(String::new());
    let edit_box = NodeRef::<leptos::html::Textarea>::new();
    let edit_button = NodeRef::<leptos::html::Button>::new();
    let close_edit = move || {
        editing.set(false);
        if let Some(button) = edit_button.get_untracked() {
            let _ = button.focus();
        }
    };
    Effect::new(move |_| {
        if let Some(Ok(())) = edit.value().get() {
            editing.set(false);
        }
    });
    Effect::new(move |_| {
        if let Some(textarea) = edit_box.get() {
            let _ = textarea.focus();
        }
    });
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let prompt = draft.get_untracked();
        if !prompt.trim().is_empty() {
            edit.dispatch(prompt);
        }
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() == "Escape" {
            ev.prevent_default();
            close_edit();
        } else if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
            ev.prevent_default();
            let prompt = draft.get_untracked();
            if !prompt.trim().is_empty() {
                edit.dispatch(prompt);
            }
        }
    };
    let can_rerun = move || is_last.get() && idle.get() && !undone.get();
    let item = item_id.clone();
    view! {
        <div class="message-actions" data-test="message-actions">
            {badge}
            <Show when=move || idle.get()>
                {
                    let item = item.clone();
                    view! { <button type="button" class="small" data-test="fork-here" disabled=move || fork.pending().get()
                        on:click=move |_| { fork.dispatch(item.clone()); }>"Fork from here"</button> }
                }
            </Show>
            <Show when=can_rerun>
                <button type="button" class="small" data-test="retry" disabled=move || retry.pending().get()
                    on:click=move |_| { retry.dispatch(()); }>"Retry"</button>
                <button type="button" class="small" data-test="edit" node_ref=edit_button aria-expanded=move || editing.get().to_string()
                    on:click=move |_| { draft.set(entry.text.get_untracked()); editing.set(true); }>"Edit"</button>
            </Show>
        </div>
        <Show when=move || editing.get() && can_rerun()>
            <form class="edit-prompt" aria-label="Edit the last prompt" on:submit=submit>
                <label class="visually-hidden" for="edit-prompt">"Edited prompt"</label>
                <textarea id="edit-prompt" data-test="edit-prompt" rows="3" node_ref=edit_box bind:value=draft on:keydown=on_key></textarea>
                <div class="actions">
                    <button type="submit" class="primary" data-test="edit-send" disabled=move || edit.pending().get()>"Send edited prompt"</button>
                    <button type="button" on:click=move |_| close_edit()>"Cancel"</button>
                </div>
            </form>
        </Show>
        <ErrorLine error=failure(fork) />
        <ErrorLine error=failure(retry) />
        <ErrorLine error=failure(edit) />
    }
    .into_any()
}

/// The id of the thread's last user message: one memo per thread view
/// (each message asking the item list itself would be quadratic).
#[derive(Clone, Copy)]
pub struct LastUserMessage(pub Memo<Option<String>>);

impl LastUserMessage {
    pub fn provide(live: Live) {
        let last = Memo::new(move |_| {
            live.items.with(|items| {
                items
                    .iter()
                    .rev()
                    .find(|e| e.record.with_untracked(|r| r.kind == ItemKind::UserMessage))
                    .map(|e| e.id.get_value())
            })
        });
        provide_context(LastUserMessage(last));
    }
}
