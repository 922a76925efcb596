use super::{
    message_actions::LastUserMessage,
    thread_panels::{Panel, PanelToggles, SidePanel},
    Attention, Composer, ForkNotice, ThreadHeader, Transcript,
};
use crate::{api::ThreadPage, live::Live};
use leptos::prelude::*;

/// A thread: header, transcript, what waits on the user, and the composer.
/// In the browser it follows the thread's event stream from the snapshot's
/// latest_seq, and fetches a long thread's older items.
#[component]
pub fn ThreadView(page: ThreadPage) -> impl IntoView {
    let live = Live::open(page);
    provide_context(live);
    LastUserMessage::provide(live);
    let panel = RwSignal::new(None::<Panel>);
    #[cfg(feature = "hydrate")]
    follow(live);
    view! {
        <article class="thread" aria-labelledby="thread-title" data-test="thread" data-thread=move || live.thread.with(|t| t.id.clone())>
            <ThreadHeader />
            <PanelToggles open=panel />
            <ForkNotice />
            <div class="thread-main" class:panel-open=move || panel.get().is_some()>
                <Transcript />
                <SidePanel open=panel />
            </div>
            <Attention />
            <Composer />
        </article>
    }
    .into_any()
}

/// Opens the event stream: a thread update or a finished turn refreshes
/// the rail, and what
/// needs the user is announced while the page is in the background.
#[cfg(feature = "hydrate")]
fn follow(live: Live) {
    use crate::{
        live::stream::{self, Hooks},
        notify::Notifier,
        page_data::RailRefresh,
        protocol::EventName,
        session::SessionEnded,
        surface::Surface,
    };
    let refresh = expect_context::<RailRefresh>();
    let notifier = use_context::<Notifier>();
    let surface = Surface::current();
    let announce = move |event: &crate::protocol::EventEnvelope| {
        if let Some(notifier) = notifier {
            let (id, title) = live
                .thread
                .with_untracked(|t| (t.id.clone(), t.title.clone()));
            notifier.announce(event, title.as_deref(), surface.thread_href(&id));
        }
    };
    let on_notable = Callback::new(move |event: crate::protocol::EventEnvelope| {
        // The rail shows the title (set by the first prompt or a rename).
        if event.event == EventName::ThreadUpdated.as_str() {
            return refresh.bump();
        }
        if event.event == EventName::TurnCompleted.as_str() {
            refresh.bump();
            return announce(&event);
        }
        // An auto-approved action is decided in the same breath: announce
        // only what is still waiting a moment later.
        let id = event.payload["id"].clone();
        set_timeout(
            move || {
                let waiting = |list: RwSignal<Vec<serde_json::Value>>| {
                    list.try_with_untracked(|l| l.iter().any(|v| v["id"] == id))
                        .unwrap_or(false)
                };
                if waiting(live.approvals) || waiting(live.inputs) {
                    announce(&event);
                }
            },
            std::time::Duration::from_millis(300),
        );
    });
    let hooks = Hooks {
        on_notable,
        ended: use_context::<SessionEnded>(),
    };
    stream::follow(live, hooks);
    crate::live::fetch_older(live);
}
