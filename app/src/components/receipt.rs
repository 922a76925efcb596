use crate::{live::Entry, protocol::ItemKind};
use leptos::prelude::*;
use serde_json::Value;

/// A tool's receipt: kind, status and summary; expanding shows the command
/// and its output, or the diff of a file change.
#[component]
pub fn Receipt(entry: Entry) -> AnyView {
    let record = entry.record;
    let kind = record.with_untracked(|r| r.kind);
    let label = match kind {
        ItemKind::CommandExecution => "Command",
        ItemKind::FileChange => "File change",
        _ => "Tool",
    };
    // Few reactive nodes per receipt: a long thread hydrates thousands.
    // Summary and status change together (while the tool runs).
    let head = move || {
        record.with(|r| {
            view! {
                <span class="receipt-summary">{r.summary.clone()}</span>
                <span class=format!("status status-{}", r.status)>{r.status.clone()}</span>
            }
        })
    };
    view! {
        <details class="receipt" data-test="receipt">
            <summary><span class="receipt-kind">{label}</span>{head}</summary>
            {move || record.with(|r| details(r.kind, &r.metadata))}
            <pre class="output">{move || entry.text.get()}</pre>
        </details>
    }
    .into_any()
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
fn Diff(diff: String) -> AnyView {
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
