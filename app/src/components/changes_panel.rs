use super::{error_line::failure, receipt::Diff, ErrorLine, WorkingTree};
use crate::{
    api::undo_last_turn,
    live::Live,
    protocol::{ItemKind, TurnRecord},
    surface::Surface,
};
use leptos::prelude::*;

/// One turn that changed files, as the panel lists it.
#[derive(Clone, PartialEq)]
struct TurnChanges {
    id: String,
    number: usize,
    prompt: String,
    undone: bool,
    /// (the receipt's summary, its unified diff) per file change.
    files: Vec<(String, String)>,
}

/// The files each turn changed (from its `file_change` items, newest turn
/// first), with "Undo this turn" on the one undo would take back, and the
/// working tree against HEAD. On the phone it is read-only.
#[component]
pub fn ChangesPanel() -> AnyView {
    let live = expect_context::<Live>();
    let editable = Surface::current() == Surface::Desktop;
    let groups = Memo::new(move |_| turn_changes(live));
    // Undo takes back the newest turn not yet undone, whatever it did: the
    // button shows only when that turn is one that changed files.
    let undoable = Memo::new(move |_| {
        live.turns.with(|turns| {
            let last = turns.iter().rev().find(|t| t.undone_at.is_none())?;
            (!last.status.is_active()).then(|| last.id.clone())
        })
    });
    let thread = move || live.thread.with_untracked(|t| t.id.clone());
    let undo = Action::new(move |_: &()| undo_last_turn(thread()));
    Effect::new(move |_| {
        if let Some(Ok(undone)) = undo.value().get() {
            // The turn.undone event says the same; this is for a lagging stream.
            let turn = undone.turn;
            live.turns.update(|turns| {
                if let Some(t) = turns.iter_mut().find(|t| t.id == turn.id) {
                    *t = turn;
                }
            });
        }
    });
    let error = failure(undo);
    view! {
        <section class="changes" aria-labelledby="changes-title" data-test="changes-panel">
            <h2 id="changes-title" tabindex="-1">"Changes"</h2>
            <Show when=move || groups.with(Vec::is_empty)>
                <p class="muted">"No turn of this thread has changed files."</p>
            </Show>
            <For each=move || groups.get() key=|g| (g.id.clone(), g.undone, g.files.len()) let:group>
                {
                    let id = group.id.clone();
                    let show_undo = move || editable && undoable.get().as_deref() == Some(id.as_str());
                    view! {
                        <article class="turn-changes" class:undone=group.undone data-test="turn-changes" aria-label=format!("Turn {}", group.number)>
                            <header class="turn-changes-head">
                                <h3>{format!("Turn {}", group.number)}<span class="muted">": " {group.prompt.clone()}</span></h3>
                                {group.undone.then(|| view! { <span class="badge" data-test="undone">"Undone"</span> })}
                                <Show when=show_undo.clone()>
                                    <button type="button" class="danger" data-test="undo" disabled=move || undo.pending().get()
                                        on:click=move |_| { undo.dispatch(()); }>"Undo this turn"</button>
                                </Show>
                            </header>
                            <Show when=show_undo>
                                <ErrorLine error />
                            </Show>
                            <ul class="changed-files">
                                {group.files.iter().map(|(summary, diff)| view! {
                                    <li><details class="changed-file" open=group.files.len() <= 3>
                                        <summary class="mono">{summary.clone()}</summary>
                                        <Diff diff=diff.clone() />
                                    </details></li>
                                }).collect_view()}
                            </ul>
                        </article>
                    }
                }
            </For>
            <WorkingTree />
        </section>
    }
    .into_any()
}

/// The turns that changed files, newest first.
fn turn_changes(live: Live) -> Vec<TurnChanges> {
    let files: Vec<(String, String, String)> = live.items.with(|items| {
        items
            .iter()
            .filter_map(|entry| {
                entry.record.with(|r| {
                    let diff = r.metadata["diff"].as_str().filter(|d| !d.is_empty())?;
                    (r.kind == ItemKind::FileChange)
                        .then(|| (r.turn_id.clone(), r.summary.clone(), diff.to_string()))
                })
            })
            .collect()
    });
    live.turns.with(|turns| {
        turns
            .iter()
            .enumerate()
            .rev()
            .filter_map(|(index, turn)| group(index, turn, &files))
            .collect()
    })
}

fn group(
    index: usize,
    turn: &TurnRecord,
    files: &[(String, String, String)],
) -> Option<TurnChanges> {
    let files: Vec<(String, String)> = files
        .iter()
        .filter(|(turn_id, _, _)| *turn_id == turn.id)
        .map(|(_, summary, diff)| (summary.clone(), diff.clone()))
        .collect();
    (!files.is_empty()).then(|| TurnChanges {
        id: turn.id.clone(),
        number: index + 1,
        prompt: turn.input_summary.clone(),
        undone: turn.undone_at.is_some(),
        files,
    })
}
