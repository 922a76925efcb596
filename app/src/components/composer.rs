use super::{error_line::failure, ErrorLine};
use crate::{
    api::{interrupt_turn, start_turn, steer_turn},
    live::Live,
};
use leptos::prelude::*;

/// The prompt box. Ctrl/⌘+Enter sends; while a turn runs it steers, and
/// Stop (or Esc) interrupts.
#[component]
pub fn Composer() -> AnyView {
    let live = expect_context::<Live>();
    let text = RwSignal::new(String::new());
    let prompt = NodeRef::<leptos::html::Textarea>::new();
    // Keyboard users land in the prompt when a thread opens, and stay there
    // after sending or stopping (a click on a button would move focus away).
    let focus_prompt = move || {
        // The callback may run after the thread view is gone.
        if let Some(Some(prompt)) = prompt.try_get_untracked() {
            let _ = prompt.focus();
        }
    };
    Effect::new(move |_| {
        if prompt.get().is_some() {
            // After the frame: the element may not be in the document yet.
            request_animation_frame(move || {
                if may_take_focus() {
                    focus_prompt();
                }
            });
        }
    });
    let thread = move || live.thread.with_untracked(|t| t.id.clone());
    let running = Memo::new(move |_| live.active_turn());
    let send = Action::new(move |(prompt, turn): &(String, Option<String>)| {
        let (prompt, turn, id) = (prompt.clone(), turn.clone(), thread());
        async move {
            match turn {
                Some(turn) => steer_turn(id, turn, prompt).await,
                None => start_turn(id, prompt).await.map(|_| ()),
            }
        }
    });
    // The box empties as a prompt is sent; if sending fails, the prompt
    // comes back (unless something new was typed meanwhile).
    let sent = StoredValue::new(String::new());
    Effect::new(move |_| {
        if send.value().with(|v| matches!(v, Some(Err(_)))) && text.get_untracked().is_empty() {
            text.set(sent.get_value());
        }
    });
    let stop = Action::new(move |turn: &String| interrupt_turn(thread(), turn.clone()));
    let submit = move || {
        let prompt = text.get_untracked();
        if prompt.trim().is_empty() || send.pending().get_untracked() {
            return;
        }
        sent.set_value(prompt.clone());
        send.dispatch((prompt, running.get_untracked()));
        text.set(String::new());
        focus_prompt();
    };
    let interrupt = move || {
        if let Some(turn) = running.get_untracked() {
            stop.dispatch(turn);
            focus_prompt();
        }
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
            ev.prevent_default();
            submit();
        } else if ev.key() == "Escape" {
            interrupt();
        }
    };
    view! {
        <form class="composer" aria-label="Prompt" on:submit=move |ev| { ev.prevent_default(); submit(); }>
            <label class="visually-hidden" for="prompt">"Prompt"</label>
            <textarea id="prompt" node_ref=prompt data-test="prompt" rows="3" bind:value=text on:keydown=on_key
                placeholder=move || if running.get().is_some() { "Steer the running turn… (Ctrl+Enter)" } else { "Ask codewhale… (Ctrl+Enter to send)" }></textarea>
            <div class="actions">
                <button type="submit" class="primary" data-test="send">{move || if running.get().is_some() { "Steer" } else { "Send" }}</button>
                <Show when=move || running.get().is_some()>
                    <button type="button" class="danger" data-test="stop" on:click=move |_| interrupt()>"Stop"</button>
                </Show>
            </div>
            <ErrorLine error=failure(send) />
            <ErrorLine error=failure(stop) />
        </form>
    }
    .into_any()
}

/// Whether opening a thread may move focus to its prompt: not while the
/// reader types elsewhere, and not on touch screens (it would raise the
/// on-screen keyboard).
fn may_take_focus() -> bool {
    let coarse = window()
        .match_media("(pointer: coarse)")
        .ok()
        .flatten()
        .is_some_and(|query| query.matches());
    let typing = document().active_element().is_some_and(|active| {
        matches!(active.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
    });
    !coarse && !typing
}
