use super::{error_line::failure, ErrorLine};
use crate::{
    api::{list_snapshots, restore_files},
    live::Live,
    protocol::{SnapshotKind, SnapshotRecord},
    surface::Surface,
};
use leptos::prelude::*;

/// On a thread forked at a message: the workspace still holds the files as
/// they are now, so offer putting them back as they were at the fork point
/// (until that has been done). Loaded in the browser only: it is a hint,
/// not part of the page.
#[component]
pub fn ForkNotice() -> AnyView {
    if Surface::current() != Surface::Desktop {
        return ().into_any();
    }
    let live = expect_context::<Live>();
    let thread = move || live.thread.with_untracked(|t| t.id.clone());
    let load = Action::new(move |_: &()| list_snapshots(thread()));
    Effect::new(move |_| {
        load.dispatch(());
    });
    let point = move || {
        load.value().with(|value| match value {
            Some(Ok(snapshots)) => fork_point(snapshots),
            _ => None,
        })
    };
    let restore = Action::new(move |id: &String| restore_files(thread(), id.clone()));
    let restored = move || {
        restore.value().with(|value| match value {
            Some(Ok(restored)) => Some(restored.files.len()),
            _ => None,
        })
    };
    let error = failure(restore);
    view! {
        {move || point().map(|snapshot| {
            let id = snapshot.id.clone();
            view! {
                <aside class="fork-notice" aria-label="Fork point" data-test="fork-notice">
                    {move || match restored() {
                        Some(count) => view! {
                            <p role="status" data-test="fork-restored">{format!("Files restored to the fork point ({count} changed).")}</p>
                        }.into_any(),
                        None => {
                            let id = id.clone();
                            view! {
                                <p>"This thread was forked from an earlier message. The workspace still holds the files as they are now."</p>
                                <button type="button" data-test="restore-fork" disabled=move || restore.pending().get()
                                    on:click=move |_| { restore.dispatch(id.clone()); }>"Restore files to this point"</button>
                            }.into_any()
                        }
                    }}
                    <ErrorLine error />
                </aside>
            }
        })}
    }
    .into_any()
}

/// The thread's fork point, unless a restore already used it.
fn fork_point(snapshots: &[SnapshotRecord]) -> Option<SnapshotRecord> {
    let point = snapshots
        .iter()
        .find(|s| s.kind == SnapshotKind::ForkPoint)?;
    let used = snapshots
        .iter()
        .any(|s| s.restored_from.as_deref() == Some(point.id.as_str()));
    (!used).then(|| point.clone())
}
