use super::{Attention, Composer, ThreadHeader, Transcript};
use crate::page_data::RailRefresh;
use crate::{live::Live, protocol::ThreadDetail};
use leptos::prelude::*;

/// A thread: header, transcript, what waits on the user, and the composer.
/// In the browser it follows the thread's event stream from the snapshot's
/// latest_seq.
#[component]
pub fn ThreadView(detail: ThreadDetail) -> impl IntoView {
    let live = Live::new(detail);
    provide_context(live);
    let refresh = expect_context::<RailRefresh>();
    #[cfg(feature = "hydrate")]
    crate::live::stream::follow(live, Callback::new(move |()| refresh.bump()));
    #[cfg(not(feature = "hydrate"))]
    let _ = refresh;
    view! {
        <article class="thread" aria-labelledby="thread-title" data-test="thread" data-thread=move || live.thread.with(|t| t.id.clone())>
            <ThreadHeader />
            <Transcript />
            <Attention />
            <Composer />
        </article>
    }
    .into_any()
}
