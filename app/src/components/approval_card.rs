use super::{error_line::failure, ErrorLine};
use crate::{api::decide_approval, protocol::ApprovalDecision};
use leptos::prelude::*;
use serde_json::Value;

/// Allow or deny one action, optionally for the rest of the thread.
#[component]
pub fn ApprovalCard(approval: Value) -> AnyView {
    let id = approval["approval_id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let text = |key: &str| approval[key].as_str().unwrap_or_default().to_string();
    let remember = RwSignal::new(false);
    let decide = Action::new(move |decision: &ApprovalDecision| {
        decide_approval(id.clone(), *decision, remember.get_untracked())
    });
    view! {
        <div class="card approval" role="group" aria-label="Approval needed" data-test="approval">
            <p class="card-title">"Approval needed: " <code>{text("tool_name")}</code></p>
            <p>{text("description")}</p>
            <p class="muted">{text("intent_summary")}</p>
            <label class="inline"><input type="checkbox" bind:checked=remember />" Remember for this thread"</label>
            <div class="actions">
                <button type="button" class="primary" data-test="allow" disabled=move || decide.pending().get() on:click=move |_| { decide.dispatch(ApprovalDecision::Allow); }>"Allow"</button>
                <button type="button" data-test="deny" disabled=move || decide.pending().get() on:click=move |_| { decide.dispatch(ApprovalDecision::Deny); }>"Deny"</button>
            </div>
            <ErrorLine error=failure(decide) />
        </div>
    }
    .into_any()
}
