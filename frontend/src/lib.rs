//! The wasm entry point. The page's inline module script (emitted by Leptos'
//! `HydrationScripts`) calls `hydrate()` once the bundle has loaded.
// Leptos view types nest deeply; the default limit is too small for the workbench.
#![recursion_limit = "512"]

use wasm_bindgen::prelude::wasm_bindgen;

#[wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_body(app::App);
    // Lets tests (and curious users) see that the page is live.
    if let Some(root) = leptos::prelude::document().document_element() {
        let _ = root.set_attribute("data-hydrated", "true");
    }
    // "Interactive" for the performance suite: navigation start to here.
    if let Some(performance) = leptos::prelude::window().performance() {
        let _ = performance.mark("codewhale:hydrated");
    }
}
