//! The page's data, loaded once per page by the home page. Created outside
//! the sign-in gate's Suspense so that server rendering (which re-runs that
//! Suspense as nested data arrives) neither loads nor serializes it twice.
//! Pages and components both read it from context; it depends on neither.

use crate::{
    api::{list_providers, list_threads, load_thread, ThreadPage},
    error::ServiceError,
    protocol::{ProviderModels, ThreadSummary},
    surface::Surface,
};
use leptos::prelude::*;
use leptos_router::hooks::{use_location, use_query_map};

/// Bumped when the thread list should reload (a thread was created,
/// renamed, archived, forked, or a turn ended).
#[derive(Clone, Copy)]
pub struct RailRefresh(pub RwSignal<u32>);

impl RailRefresh {
    pub fn bump(self) {
        self.0.update(|n| *n += 1);
    }
}

#[derive(Clone, Copy)]
pub struct PageData {
    pub threads: Resource<Result<Vec<ThreadSummary>, ServiceError>>,
    pub providers: Resource<Result<Vec<ProviderModels>, ServiceError>>,
    /// The selected thread's page (`None` off a thread page).
    pub detail: Resource<Result<Option<ThreadPage>, ServiceError>>,
}

/// Creates the resources and provides them (with the rail's refresh signal).
pub fn provide_page_data() {
    let refresh = RailRefresh(RwSignal::new(0));
    provide_context(refresh);
    let query = use_query_map();
    let location = use_location();
    let search = move || query.read().get("q").unwrap_or_default();
    let archived = move || query.read().get("archived").is_some_and(|v| v == "1");
    let threads = Resource::new(
        move || (archived(), search(), refresh.0.get()),
        |(archived, search, _)| list_threads(archived, search),
    );
    let providers = Resource::new(|| (), |_| list_providers());
    let thread_id =
        Memo::new(move |_| location.pathname.with(|path| Surface::thread_in_path(path)));
    // `?from=N`: the transcript's first item, when its button is used
    // without JavaScript.
    let from = move || {
        query
            .read()
            .get("from")
            .and_then(|v| v.parse::<usize>().ok())
    };
    let detail = Resource::new(
        move || (thread_id.get(), from()),
        |(id, from)| async move {
            match id {
                Some(id) => load_thread(id, from).await.map(Some),
                None => Ok(None),
            }
        },
    );
    provide_context(PageData {
        threads,
        providers,
        detail,
    });
}
