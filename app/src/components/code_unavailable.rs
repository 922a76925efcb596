//! When code from a chunk of the bundle cannot be fetched: codewhale was
//! stopped, or updated since this tab opened (its chunks live under its own
//! build's path, which the new server refuses). Said in place, never a
//! panic: a panic aborts the whole wasm module.

#[cfg(feature = "hydrate")]
use leptos::prelude::*;

/// Set while the page reloads because the code of the page it was
/// hydrating could not be fetched; the frontend clears it once a page
/// hydrates, so a second failure in a row leaves the page as served.
pub const RELOADED_FOR_CODE: &str = "codewhale:reloaded-for-code";

/// The notice, with a link that loads the page (and this build) again.
#[cfg(feature = "hydrate")]
pub fn code_unavailable(what: &'static str) -> AnyView {
    let here = leptos_router::hooks::use_location()
        .pathname
        .get_untracked();
    view! {
        <p class="notice error" role="alert" data-test="code-unavailable">
            {what} " could not be loaded: codewhale was stopped or updated since this tab opened. "
            <a href=here rel="external">"Reload"</a>
        </p>
    }
    .into_any()
}

/// A lazy page's chunk failed to load ahead of the page: when the router
/// preloads it to show the page, or before the server's page hydrates
/// (`load_page_code`). In the app that is fine: the page tries again and
/// says so if it fails (`code_unavailable`). Before hydration it is not:
/// hydration is synchronous, and a page without its code would not match
/// what the server rendered (a mismatch aborts the module). So the page
/// loads again, once; if its code fails again (or the tab cannot remember
/// that it tried: no session storage), this never returns and the
/// server's page stays as it is, readable but not live.
#[cfg(feature = "hydrate")]
pub async fn preload_failed() {
    let hydrated = document()
        .document_element()
        .is_some_and(|root| root.has_attribute("data-hydrated"));
    if hydrated {
        return;
    }
    let window = window();
    let here = window.location().href().unwrap_or_default();
    let storage = window.session_storage().ok().flatten();
    let tried = storage
        .as_ref()
        .and_then(|s| s.get_item(RELOADED_FOR_CODE).ok().flatten());
    // Without storage a reload could not know it was the second try.
    let remembered = storage
        .as_ref()
        .is_some_and(|s| s.set_item(RELOADED_FOR_CODE, &here).is_ok());
    if tried.as_deref() != Some(here.as_str()) && remembered {
        let _ = window.location().reload();
    }
    std::future::pending().await
}
