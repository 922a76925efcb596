//! `/sessions`: conversations saved as files (a thread's "Save as
//! session", or the legacy session manager's), newest first, searchable;
//! each can come back as a new thread that carries it, or be deleted. The
//! list reads the same with JavaScript off.

use crate::{
    api::{delete_session, load_sessions, resume_session},
    components::{
        relative_unix, row_action, row_error, row_pending, ErrorLine, ErrorNotice, RowAction,
    },
    protocol::SessionMetadata,
};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_navigate, use_query_map};

#[component]
pub fn SessionsPage() -> impl IntoView {
    let query = use_query_map();
    let search = move || query.with(|q| q.get("search").unwrap_or_default());
    let version = RwSignal::new(0u32);
    let sessions = Resource::new(
        move || (search(), version.get()),
        |(search, _)| load_sessions(search),
    );
    let remove = row_action(|id, ()| delete_session(id));
    Effect::new(move |_| {
        if let Some(Ok(())) = remove.value().get() {
            version.update(|n| *n = n.wrapping_add(1));
        }
    });
    let resume = Action::new(|id: &String| resume_session(id.clone()));
    let navigate = use_navigate();
    Effect::new(move |_| {
        if let Some(Ok(thread)) = resume.value().get() {
            navigate(&format!("/threads/{thread}"), Default::default());
        }
    });
    view! {
        <Title text="Sessions · codewhale" />
        <section class="background-page" aria-labelledby="sessions-title">
            <h1 id="sessions-title">"Sessions"</h1>
            <p class="muted">
                "Conversations saved as files in " <code>"sessions/"</code> " of codewhale's home. "
                "Resuming one starts a new thread that carries the whole conversation."
            </p>
            <form method="get" action="/sessions" class="stack" role="search">
                <label>"Search titles"
                    <input type="search" name="search" prop:value=search data-test="session-search" />
                </label>
            </form>
            <ErrorLine error=Signal::derive(move || resume.value().with(|r| match r {
                Some(Err(error)) => Some(error.to_string()),
                _ => None,
            })) />
            <Transition fallback=|| view! { <p class="muted">"Loading sessions…"</p> }>
                {move || Suspend::new(async move {
                    match sessions.await {
                        Ok(list) if list.is_empty() => view! {
                            <p class="muted" data-test="no-sessions">"No sessions."</p>
                        }.into_any(),
                        Ok(list) => view! {
                            <ul class="background-list" data-test="session-list">
                                {list.into_iter().map(|session| view! { <SessionRow session remove resume /> }).collect_view()}
                            </ul>
                        }.into_any(),
                        Err(error) => view! { <ErrorNotice message=format!("Could not load sessions: {error}") /> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn SessionRow(
    session: SessionMetadata,
    remove: RowAction<()>,
    resume: Action<String, Result<String, crate::error::ServiceError>>,
) -> impl IntoView {
    let id = session.id.clone();
    let pending = row_pending(remove, id.clone());
    let updated = relative_unix(session.updated_at);
    let (resume_id, remove_id, error_id) = (id.clone(), id.clone(), id.clone());
    view! {
        <li class="background-item" data-test="session" data-session=id.clone()>
            <div class="background-facts">
                <span class="background-title">{session.title.clone()}</span>
                <span class="chip muted">{format!("{} messages", session.message_count)}</span>
            </div>
            <p class="muted">{session.name.clone()} " · saved " {updated}</p>
            <div class="actions">
                <button type="button" class="primary" data-test="resume-session"
                    aria-label=format!("Resume {} as a thread", session.title)
                    disabled=move || resume.pending().get()
                    on:click=move |_| { resume.dispatch(resume_id.clone()); }>"Resume as thread"</button>
                <button type="button" data-test="delete-session" disabled=pending
                    aria-label=format!("Delete {}", session.title)
                    on:click=move |_| { remove.dispatch((remove_id.clone(), ())); }>"Delete"</button>
            </div>
            <ErrorLine error=row_error(remove, error_id) />
        </li>
    }
}
