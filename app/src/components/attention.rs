use super::{ApprovalCard, UserInputForm};
use crate::live::Live;
use leptos::{prelude::*, wasm_bindgen::JsCast};

/// What waits on the user: approvals, questions, client tool calls.
#[component]
pub fn Attention() -> AnyView {
    let live = expect_context::<Live>();
    // A card that held focus disappears once answered: put focus on the next
    // thing waiting, or back in the prompt, instead of leaving it nowhere.
    // Only if focus was in here: a card answered in another tab moves nothing.
    let held_focus = StoredValue::new(false);
    let open = Memo::new(move |_| live.approvals.with(Vec::len) + live.inputs.with(Vec::len));
    Effect::new(move |before: Option<usize>| {
        let now = open.get();
        if before.is_some_and(|before| now < before) && held_focus.get_value() {
            request_animation_frame(refocus);
        }
        now
    });
    let focus_out = move |ev: leptos::ev::FocusEvent| {
        // No related target: focus went nowhere (its element was removed).
        if ev.related_target().is_some() {
            held_focus.set_value(false);
        }
    };
    // Always present (an empty section takes no space) so that screen
    // readers announce the cards that appear in it.
    view! {
        <section class="attention" aria-label="Waiting for you" aria-live="polite"
            on:focusin=move |_| held_focus.set_value(true) on:focusout=focus_out>
            <For each=move || live.approvals.get() key=|a| a["id"].to_string() let:approval>
                <ApprovalCard approval />
            </For>
            <For each=move || live.inputs.get() key=|i| i["id"].to_string() let:input>
                <UserInputForm input />
            </For>
            <For each=move || live.tool_calls.get() key=|c| c["id"].to_string() let:call>
                <p class="card pending-call" data-test="pending-tool-call">
                    "Waiting for the client tool " <code>{tool_name(&call)}</code> " to return a result…"
                </p>
            </For>
        </section>
    }
    .into_any()
}

fn tool_name(call: &serde_json::Value) -> String {
    let tool = call["tool"].as_str().unwrap_or("?");
    match call["namespace"].as_str() {
        Some(namespace) => format!("{namespace}.{tool}"),
        None => tool.to_string(),
    }
}

/// Moves focus to the first control waiting for the user, else the prompt,
/// if focus was lost (it sits on the body after its element was removed).
fn refocus() {
    let document = document();
    let lost = match (document.active_element(), document.body()) {
        (Some(active), Some(body)) => active == *body,
        _ => true,
    };
    if !lost {
        return;
    }
    let target = document
        .query_selector(".attention :is(input, button):not([disabled])")
        .ok()
        .flatten()
        .or_else(|| document.get_element_by_id("prompt"));
    if let Some(target) = target.and_then(|t| t.dyn_into::<leptos::web_sys::HtmlElement>().ok()) {
        let _ = target.focus();
    }
}
