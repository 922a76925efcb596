use super::CodeView;
use crate::{
    api::{browse_workspace, read_workspace_file},
    live::Live,
    protocol::{EntryKind, WorkspaceEntry, WorkspaceFile, WorkspaceListing},
};
use leptos::prelude::*;

/// Browse the thread's workspace and read its text files. Paths go to the
/// runtime as given; it confines them (the same resolver as the tools).
#[component]
pub fn FilesPanel() -> AnyView {
    let live = expect_context::<Live>();
    let thread = move || live.thread.with_untracked(|t| t.id.clone());
    let dir = RwSignal::new(String::new());
    let list = Action::new(move |path: &String| {
        let path = (!path.is_empty()).then(|| path.clone());
        browse_workspace(thread(), path)
    });
    let open = Action::new(move |path: &String| read_workspace_file(thread(), path.clone()));
    Effect::new(move |_| {
        list.dispatch(dir.get());
    });
    // Going into a folder replaces the button that had focus: focus goes
    // to the panel's heading rather than being lost to the page.
    let go = move |path: String| {
        dir.set(path);
        request_animation_frame(|| {
            if let Some(heading) = document().get_element_by_id("files-title") {
                use leptos::wasm_bindgen::JsCast;
                if let Ok(heading) = heading.dyn_into::<leptos::web_sys::HtmlElement>() {
                    let _ = heading.focus();
                }
            }
        });
    };
    let on_entry = Callback::new(move |entry: WorkspaceEntry| match entry.kind {
        EntryKind::Dir => go(entry.path),
        _ => {
            open.dispatch(entry.path);
        }
    });
    let listing = move || {
        list.value().with(|value| match value {
            None => view! { <p class="muted">"Loading…"</p> }.into_any(),
            Some(Err(error)) => {
                view! { <p class="error" role="alert">{error.to_string()}</p> }.into_any()
            }
            Some(Ok(listing)) => entries(listing, on_entry),
        })
    };
    let file = move || {
        open.value().with(|value| match value {
            None => None,
            Some(Err(error)) => {
                Some(view! { <p class="error" role="alert">{error.to_string()}</p> }.into_any())
            }
            Some(Ok(file)) => Some(file_view(file)),
        })
    };
    view! {
        <section class="files" aria-labelledby="files-title" data-test="files-panel">
            <h2 id="files-title" tabindex="-1">"Files"</h2>
            <nav class="crumbs" aria-label="Folder">
                {move || crumbs(&dir.get()).into_iter().map(|(name, path)| view! {
                    <button type="button" class="link" on:click=move |_| go(path.clone())>{name}</button>
                    <span aria-hidden="true">" / "</span>
                }).collect_view()}
            </nav>
            {listing}
            {file}
        </section>
    }
    .into_any()
}

/// The folder's ancestors, root first: (name, path).
fn crumbs(dir: &str) -> Vec<(String, String)> {
    let mut out = vec![("workspace".to_string(), String::new())];
    let mut path = String::new();
    for part in dir.split('/').filter(|p| !p.is_empty()) {
        if !path.is_empty() {
            path.push('/');
        }
        path.push_str(part);
        out.push((part.to_string(), path.clone()));
    }
    out
}

fn entries(listing: &WorkspaceListing, on_entry: Callback<WorkspaceEntry>) -> AnyView {
    if listing.entries.is_empty() {
        return view! { <p class="muted">"This folder is empty."</p> }.into_any();
    }
    let rows = listing.entries.iter().cloned().map(|entry| {
        // No icons: emoji fonts are not everywhere; a folder ends in "/".
        let (suffix, label) = match entry.kind {
            EntryKind::Dir => ("/", "folder"),
            EntryKind::File => ("", "file"),
            EntryKind::Symlink => ("", "link (not followed)"),
            EntryKind::Other => ("", "other"),
        };
        let size = entry.size.map(size_text);
        let openable = matches!(entry.kind, EntryKind::Dir | EntryKind::File);
        let name = entry.name.clone();
        view! {
            <li data-test="file-entry">
                {if openable {
                    view! { <button type="button" class="link" aria-label=format!("{name}, {label}")
                        on:click=move |_| on_entry.run(entry.clone())>{name.clone()}{suffix}</button> }.into_any()
                } else {
                    view! { <span>{name.clone()}" ("{label}")"</span> }.into_any()
                }}
                {size.map(|s| view! { <span class="muted">" "{s}</span> })}
            </li>
        }
    });
    let truncated = listing
        .truncated
        .then(|| view! { <p class="notice">"Only the first entries are listed."</p> });
    view! { <ul class="file-list">{rows.collect_view()}</ul>{truncated} }.into_any()
}

fn file_view(file: &WorkspaceFile) -> AnyView {
    let language = file.language_hint.clone();
    let facts = format!(
        "{} · {}",
        language.clone().unwrap_or_else(|| "plain text".into()),
        size_text(file.size)
    );
    let body = match (&file.content, file.binary) {
        (_, true) => view! { <p class="notice" data-test="file-binary">"Binary file: its contents are not shown."</p> }.into_any(),
        (None, false) => view! { <p class="notice">"This file could not be shown as text."</p> }.into_any(),
        (Some(content), false) => view! { <CodeView content=content.clone() language /> }.into_any(),
    };
    let truncated = file.truncated.then(|| {
        view! { <p class="notice" data-test="file-truncated">"Truncated: only the beginning of this file is shown."</p> }
    });
    view! {
        <article class="file-view" aria-labelledby="file-title" data-test="file-view">
            <h3 id="file-title" class="mono">{file.path.clone()}</h3>
            <p class="muted" data-test="file-facts">{facts}</p>
            {truncated}
            {body}
        </article>
    }
    .into_any()
}

fn size_text(bytes: u64) -> String {
    match bytes {
        0..1024 => format!("{bytes} B"),
        1024..1_048_576 => format!("{:.1} KB", bytes as f64 / 1024.0),
        _ => format!("{:.1} MB", bytes as f64 / 1_048_576.0),
    }
}
