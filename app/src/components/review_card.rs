use super::{error_line::failure, ErrorLine};
use crate::{
    api::{apply_finding, revert_action},
    live::{Entry, Live},
    surface::Surface,
};
use leptos::prelude::*;

/// A review finding: priority, title, where, why, and the exact
/// replacement if the reviewer proposed one. Apply starts a turn that makes
/// the change through the usual approvals and snapshots.
#[component]
pub fn FindingCard(entry: Entry) -> AnyView {
    let live = expect_context::<Live>();
    let Some(finding) = entry.record.with_untracked(|r| r.review_finding()) else {
        // An older or malformed record: its summary is all there is.
        let summary = entry.record.with_untracked(|r| r.summary.clone());
        return view! { <p class="notice">{summary}</p> }.into_any();
    };
    let thread = move || live.thread.with_untracked(|t| t.id.clone());
    let apply = Action::new(move |id: &String| apply_finding(thread(), id.clone()));
    let applied = move || matches!(apply.value().get(), Some(Ok(())));
    let idle = move || live.active_turn().is_none();
    let lines = if finding.start_line == finding.end_line {
        format!("{}:{}", finding.path, finding.start_line)
    } else {
        format!(
            "{}:{}-{}",
            finding.path, finding.start_line, finding.end_line
        )
    };
    let priority = finding.priority.as_str();
    let id = entry.id.get_value();
    let editable = Surface::current() == Surface::Desktop;
    view! {
        <article class="finding" data-test="finding" aria-label=format!("Finding: {}", finding.title)>
            <header class="finding-head">
                <span class=format!("badge priority priority-{priority}")>{priority.to_uppercase()}</span>
                <h2>{finding.title.clone()}</h2>
            </header>
            <p class="mono muted">{lines}</p>
            <p class="plain">{finding.body.clone()}</p>
            {finding.replacement.clone().map(|replacement| view! {
                <p class="muted">"Proposed replacement:"</p>
                <pre class="diff" aria-label="Proposed replacement">
                    {finding.original.lines().map(|l| view! { <span class="del">{format!("-{l}")}"\n"</span> }).collect_view()}
                    {replacement.lines().map(|l| view! { <span class="add">{format!("+{l}")}"\n"</span> }).collect_view()}
                </pre>
            })}
            {editable.then(|| view! {
                <div class="actions">
                    <button type="button" data-test="apply-finding" disabled=move || apply.pending().get() || applied() || !idle()
                        on:click=move |_| { apply.dispatch(id.clone()); }>
                        {move || if applied() { "Applying…" } else { "Apply" }}
                    </button>
                </div>
            })}
            <ErrorLine error=failure(apply) />
        </article>
    }
    .into_any()
}

/// The item that opens an apply turn: which findings, and Revert (files
/// back as they were before it, refused if they changed since).
#[component]
pub fn ActionCard(entry: Entry) -> AnyView {
    let live = expect_context::<Live>();
    let thread = move || live.thread.with_untracked(|t| t.id.clone());
    let revert = Action::new(move |id: &String| revert_action(thread(), id.clone()));
    Effect::new(move |_| {
        // Revert sends no event: the reply is the item as it now is.
        if let Some(Ok(mut record)) = revert.value().get() {
            record.detail = None;
            entry.record.set(record);
        }
    });
    let action = move || entry.record.with(|r| r.review_action());
    let reverted = move || action().is_some_and(|a| a.reverted.is_some());
    let turn_done = move || {
        let turn = action().map(|a| a.turn_id).unwrap_or_default();
        live.turns.with(|turns| {
            turns
                .iter()
                .any(|t| t.id == turn && !t.status.is_active() && t.undone_at.is_none())
        })
    };
    let count = move || action().map_or(0, |a| a.finding_ids.len());
    let summary = entry.record.with_untracked(|r| r.summary.clone());
    let id = entry.id.get_value();
    let editable = Surface::current() == Surface::Desktop;
    view! {
        <article class="review-action" data-test="review-action" aria-label="Review action">
            <p>
                <span class="receipt-kind">"Review action"</span>" "{summary}
                <span class="muted">{move || format!(" ({} finding{})", count(), if count() == 1 { "" } else { "s" })}</span>
                " "{move || reverted().then(|| view! { <span class="badge" data-test="reverted">"Reverted"</span> })}
            </p>
            <Show when=move || editable && !reverted() && turn_done()>
                {
                    let id = id.clone();
                    view! { <button type="button" class="danger" data-test="revert" disabled=move || revert.pending().get()
                        on:click=move |_| { revert.dispatch(id.clone()); }>"Revert"</button> }
                }
            </Show>
            <ErrorLine error=failure(revert) />
        </article>
    }
    .into_any()
}

/// A review item's card. Only review threads have them, so in the browser
/// their code is a chunk of the bundle. Hydration cannot wait for it: a
/// page the server rendered with one loads the chunk first
/// (`load_review_code`).
pub fn review_card(entry: Entry, finding: bool) -> AnyView {
    #[cfg(feature = "hydrate")]
    {
        Suspend::new(async move {
            review_in_chunk(entry, finding)
                .await
                .unwrap_or_else(|_| super::code_unavailable("This card's code"))
        })
        .into_any()
    }
    #[cfg(not(feature = "hydrate"))]
    review_view(entry, finding)
}

fn review_view(entry: Entry, finding: bool) -> AnyView {
    if finding {
        view! { <FindingCard entry /> }.into_any()
    } else {
        view! { <ActionCard entry /> }.into_any()
    }
}

#[cfg(feature = "hydrate")]
#[leptos::wasm_split::wasm_split(review_cards, wasm_split_path = ::leptos::wasm_split, preload(preload_review_cards), fallible)]
fn review_in_chunk(
    entry: Entry,
    finding: bool,
) -> Result<AnyView, leptos::wasm_split::SplitLoaderError> {
    Ok(review_view(entry, finding))
}

/// Before the server's page hydrates: the review cards' chunk, if the page
/// shows a card (the transcript marks each item with its kind). If it
/// cannot be had, the page loads again once, then stays as served
/// (`preload_failed`).
#[cfg(feature = "hydrate")]
pub async fn load_review_code() {
    let shown = document()
        .query_selector(r#".item[data-kind="review_finding"], .item[data-kind="review_action"]"#)
        .ok()
        .flatten()
        .is_some();
    if shown && preload_review_cards().await.is_err() {
        super::preload_failed().await;
    }
}
