use super::relative_time;
use crate::{protocol::ThreadSummary, surface::Surface};
use leptos::prelude::*;
use leptos_router::{components::A, hooks::use_location};

/// One row of the rail: title, status, preview, branch, when.
#[component]
pub fn ThreadRow(row: ThreadSummary) -> AnyView {
    let href = Surface::current().thread_href(&row.id);
    let location = use_location();
    let current = {
        let href = href.clone();
        Memo::new(move |_| location.pathname.get() == href)
    };
    // The header's title, word for word; the prompt shows below it.
    let title = row
        .title
        .clone()
        .unwrap_or_else(|| "Untitled thread".into());
    let preview = row.preview.clone().filter(|p| *p != title);
    let status = row
        .latest_turn_status
        .and_then(|s| serde_json::to_value(s).ok())
        .and_then(|s| s.as_str().map(str::to_string))
        .unwrap_or_else(|| "new".into());
    view! {
        <li class="thread-row" class:current=current data-test="thread-row" data-thread=row.id.clone()>
            <A href=href attr:aria-current=move || current.get().then_some("page")>
                <span class="row-title">{title}</span>
                <span class=format!("status status-{status}")>{status.replace("in_progress", "running")}</span>
                {preview.map(|p| view! { <span class="row-preview">{p}</span> })}
                <span class="row-meta">
                    {row.branch.map(|b| view! { <span class="branch">{b}</span> })}
                    <time datetime=row.updated_at.clone()>{relative_time(&row.updated_at)}</time>
                </span>
            </A>
        </li>
    }
    .into_any()
}
