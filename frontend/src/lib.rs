//! The wasm entry point. The page's inline module script (emitted by Leptos'
//! `HydrationScripts`) calls `hydrate()` once the bundle has loaded.
// Leptos view types nest deeply; the default limit is too small for the workbench.
#![recursion_limit = "512"]

use wasm_bindgen::prelude::wasm_bindgen;

#[wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    // Asynchronous hydration: a page on a lazy route (app/src/pages/lazy.rs)
    // waits for its chunk of the bundle before its part of the page hydrates.
    wasm_bindgen_futures::spawn_local(async {
        let Some(body) = leptos::prelude::document().body() else {
            return;
        };
        leptos::mount::hydrate_from_async(body, app::App)
            .await
            .forget();
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
