use crate::{
    live::Entry,
    protocol::{ItemKind, ItemStatus, TurnItemRecord},
};
use leptos::prelude::*;
use leptos_router::components::A;
use serde_json::Value;

/// The item's text: live while it runs, fixed once settled.
pub(super) fn text(entry: Entry, running: bool) -> AnyView {
    if running {
        (move || entry.text.get()).into_any()
    } else {
        entry.text.get_untracked().into_any()
    }
}

/// An item's `<details>` element and whether the reader had it open (kept
/// across re-renders of a running item).
pub type Disclosure = (NodeRef<leptos::html::Details>, bool);

/// A tool's receipt: kind, status and summary; expanding shows the command
/// and its output, or the diff of a file change.
pub fn receipt(entry: Entry, record: &TurnItemRecord, (node, open): Disclosure) -> AnyView {
    let label = match record.kind {
        ItemKind::CommandExecution => "Command",
        ItemKind::FileChange => "File change",
        _ => "Tool",
    };
    let running = record.status == ItemStatus::InProgress;
    let sub_agent = sub_agent(&record.metadata);
    view! {
        <details class="receipt" data-test="receipt" node_ref=node open=open>
            <summary>
                <span class="receipt-kind">{label}</span>
                <span class="receipt-summary">{record.summary.clone()}</span>
                <span class=format!("status status-{}", record.status.as_str())>{record.status.as_str()}</span>
            </summary>
            {details(record.kind, &record.metadata)}
            <pre class="output">{text(entry, running)}</pre>
        </details>
        {sub_agent}
    }
    .into_any()
}

/// A `spawn_agent` or `agent_result` call: its child's thread, and how
/// the run ended once that is known.
fn sub_agent(metadata: &Value) -> Option<AnyView> {
    let thread = metadata["child_thread_id"].as_str()?.to_string();
    let status = metadata["run_status"].as_str().map(|status| {
        view! {
            " "
            <span class=format!("status status-{status}") data-test="sub-agent-status">{status.to_string()}</span>
        }
    });
    Some(
        view! {
            <p class="sub-agent" data-test="sub-agent">
                <A href=format!("/threads/{thread}") attr:data-test="sub-agent-thread">
                    "Open the sub-agent's thread"
                </A>
                {status}
            </p>
        }
        .into_any(),
    )
}

fn details(kind: ItemKind, metadata: &Value) -> Option<AnyView> {
    match kind {
        ItemKind::CommandExecution => {
            let arguments: Value = metadata["arguments"]
                .as_str()
                .and_then(|a| serde_json::from_str(a).ok())
                .unwrap_or_default();
            arguments["command"].as_str().map(|command| {
                view! { <pre class="command">"$ " {command.to_string()}</pre> }.into_any()
            })
        }
        ItemKind::FileChange => metadata["diff"]
            .as_str()
            .map(|diff| view! { <Diff diff=diff.to_string() /> }.into_any()),
        _ => None,
    }
}

/// A unified diff, lines coloured by what they do.
#[component]
pub(super) fn Diff(diff: String) -> AnyView {
    let lines: Vec<(String, &'static str)> = diff
        .lines()
        .map(|line| {
            let class = match line.as_bytes().first() {
                Some(b'+') if !line.starts_with("+++") => "add",
                Some(b'-') if !line.starts_with("---") => "del",
                Some(b'@') => "hunk",
                _ => "ctx",
            };
            (line.to_string(), class)
        })
        .collect();
    view! {
        <pre class="diff" aria-label="Diff">
            {lines.into_iter().map(|(line, class)| view! { <span class=class>{line}"\n"</span> }).collect_view()}
        </pre>
    }
    .into_any()
}
