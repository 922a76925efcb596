//! The wasm entry point. The page's inline module script (emitted by Leptos'
//! `HydrationScripts`) calls `hydrate()` once the bundle has loaded.
// Leptos view types nest deeply; the default limit is too small for the workbench.
#![recursion_limit = "512"]

use wasm_bindgen::prelude::wasm_bindgen;

#[wasm_bindgen]
pub fn hydrate() {
    // A page on a lazy route (app/src/pages/lazy.rs) needs its chunk of
    // the bundle first: hydration is synchronous (vendor/README.md).
    wasm_bindgen_futures::spawn_local(async {
        let path = leptos::prelude::window()
            .location()
            .pathname()
            .unwrap_or_default();
        app::load_page_code(&path).await;
        leptos::mount::hydrate_body(app::App);
        // A page that reloaded because its code could not be fetched made it.
        if let Ok(Some(storage)) = leptos::prelude::window().session_storage() {
            let _ = storage.remove_item(app::RELOADED_FOR_CODE);
        }
        // Lets tests (and curious users) see that the page is live.
        if let Some(root) = leptos::prelude::document().document_element() {
            let _ = root.set_attribute("data-hydrated", "true");
        }
        // "Interactive" for the performance suite: navigation start to here.
        if let Some(performance) = leptos::prelude::window().performance() {
            let _ = performance.mark("codewhale:hydrated");
        }
    });
}
