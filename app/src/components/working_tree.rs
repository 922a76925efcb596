use crate::{
    api::working_tree_diff,
    live::Live,
    protocol::{DiffFile, DiffLineKind, WorkspaceDiff},
};
use leptos::prelude::*;

/// The workspace's uncommitted changes against HEAD, reloaded whenever a
/// turn starts, ends or is undone (and by the Refresh button: hand edits
/// send no event).
#[component]
pub fn WorkingTree() -> AnyView {
    let live = expect_context::<Live>();
    let thread = move || live.thread.with_untracked(|t| t.id.clone());
    let load = Action::new(move |_: &()| working_tree_diff(thread()));
    Effect::new(move |_| {
        live.turns.track();
        load.dispatch(());
    });
    let body = move || {
        load.value().with(|value| match value {
            None => view! { <p class="muted">"Loading…"</p> }.into_any(),
            // 409: not a git repository; said as the runtime says it.
            Some(Err(error)) if error.status == 409 => {
                view! { <p class="muted">{error.message.clone()}</p> }.into_any()
            }
            Some(Err(error)) => {
                view! { <p class="error" role="alert">{error.to_string()}</p> }.into_any()
            }
            Some(Ok(diff)) => tree(diff),
        })
    };
    view! {
        <section class="working-tree" aria-labelledby="working-tree-title" data-test="working-tree">
            <header class="turn-changes-head">
                <h3 id="working-tree-title">"Working tree"</h3>
                <button type="button" on:click=move |_| { load.dispatch(()); } disabled=move || load.pending().get()>"Refresh"</button>
            </header>
            {body}
        </section>
    }
    .into_any()
}

fn tree(diff: &WorkspaceDiff) -> AnyView {
    if diff.files.is_empty() {
        return view! { <p class="muted">"No uncommitted changes."</p> }.into_any();
    }
    let truncated = diff
        .truncated
        .then(|| view! { <p class="notice">"Only part of the diff is shown: it is larger than the view's limits."</p> });
    view! {
        <ul class="changed-files">
            {diff.files.iter().map(file).collect_view()}
        </ul>
        {truncated}
    }
    .into_any()
}

fn file(file: &DiffFile) -> impl IntoView {
    let status = format!("{:?}", file.status).to_lowercase();
    let name = match &file.old_path {
        Some(old) if *old != file.path => format!("{old} → {}", file.path),
        _ => file.path.clone(),
    };
    let note = if file.binary {
        Some("Binary file: contents not shown.")
    } else if file.symlink {
        Some("Symbolic link: its target is not read.")
    } else if file.truncated {
        Some("Diff truncated.")
    } else {
        None
    };
    let mut lines = Vec::new();
    for hunk in &file.hunks {
        lines.push(("hunk", hunk.header.clone()));
        for line in &hunk.lines {
            let (class, sign) = match line.kind {
                DiffLineKind::Add => ("add", '+'),
                DiffLineKind::Delete => ("del", '-'),
                DiffLineKind::Context => ("ctx", ' '),
            };
            lines.push((class, format!("{sign}{}", line.text.trim_end_matches('\n'))));
        }
    }
    let diff = (!lines.is_empty()).then(|| {
        view! {
            <pre class="diff" aria-label=format!("Diff of {}", file.path)>
                {lines.into_iter().map(|(class, line)| view! { <span class=class>{line}"\n"</span> }).collect_view()}
            </pre>
        }
    });
    view! {
        <li><details class="changed-file" open=true data-test="working-file">
            <summary><span class="mono">{name}</span>" "<span class="badge">{status}</span></summary>
            {note.map(|note| view! { <p class="muted">{note}</p> })}
            {diff}
        </details></li>
    }
}
