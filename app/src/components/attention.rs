use super::{ApprovalCard, UserInputForm};
use crate::live::Live;
use leptos::prelude::*;

/// What waits on the user: approvals, questions, client tool calls.
#[component]
pub fn Attention() -> AnyView {
    let live = expect_context::<Live>();
    let empty = move || {
        live.approvals.with(Vec::is_empty)
            && live.inputs.with(Vec::is_empty)
            && live.tool_calls.with(Vec::is_empty)
    };
    view! {
        <section class="attention" aria-label="Waiting for you" hidden=empty>
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
