//! codewhale's Leptos application: the page shell, routes, components and
//! server functions. The wire types live in the `protocol` crate (re-exported
//! here as `app::protocol`). Built with `ssr` for the server and `hydrate`
//! for wasm.
// Leptos view types nest deeply; the default limit is too small for the workbench.
#![recursion_limit = "512"]

pub mod api;
mod components;
pub mod error;
mod live;
pub mod markdown;
mod notify;
mod page_data;
pub(crate) mod pages;
pub use components::RELOADED_FOR_CODE;
#[cfg(feature = "hydrate")]
pub use pages::load_page_code;
pub use protocol;
#[cfg(feature = "ssr")]
pub mod security;
#[cfg(feature = "ssr")]
pub mod service;
mod session;
mod surface;

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, Link, Meta, MetaTags, Stylesheet, Title};
use leptos_router::{
    components::{ParentRoute, Route, Router, Routes},
    path, Lazy, SsrMode,
};

/// Name of the wasm-bindgen output (`pkg/<name>.js`, `pkg/<name>_bg.wasm`,
/// `pkg/<name>.css`); scripts/build uses the same name.
pub const OUTPUT_NAME: &str = "codewhale";

/// The HTML document around the app. Rendered only on the server.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    #[cfg(feature = "ssr")]
    security::set_page_headers();
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                // A thread page is painted once its transcript is parsed,
                // not progressively from the top of an old conversation
                // (each partial paint re-lays-out the growing page). Pages
                // without a prompt render when parsing ends.
                <link rel="expect" href="#prompt" blocking="render" />
                <HydrationScripts options />
                <MetaTags />
            </head>
            <body>
                <App />
            </body>
        </html>
    }
}

#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    session::SessionEnded::provide();
    view! {
        <Stylesheet id="codewhale-css" href=format!("/pkg/{OUTPUT_NAME}.css") />
        <Link rel="icon" href="/favicon.svg" type_="image/svg+xml" />
        <Meta name="color-scheme" content="light dark" />
        <Title text="codewhale" />
        <Router>
            <Routes fallback=pages::NotFound>
                // Async: the whole page is rendered before it is sent, so it
                // reads the same with JavaScript off.
                <ParentRoute path=path!("") view=pages::Home ssr=SsrMode::Async>
                    <Route path=path!("") view=pages::NoThread ssr=SsrMode::Async />
                    <Route path=path!("threads/:id") view=pages::ThreadPage ssr=SsrMode::Async />
                    <Route path=path!("usage") view={Lazy::<pages::UsageRoute>::new()} ssr=SsrMode::Async />
                    <Route path=path!("devices") view={Lazy::<pages::DevicesRoute>::new()} ssr=SsrMode::Async />
                    <Route path=path!("tasks") view={Lazy::<pages::TasksRoute>::new()} ssr=SsrMode::Async />
                    <Route path=path!("automations") view={Lazy::<pages::AutomationsRoute>::new()} ssr=SsrMode::Async />
                    <Route path=path!("fleet") view={Lazy::<pages::FleetRoute>::new()} ssr=SsrMode::Async />
                    <Route path=path!("fleet/:id") view={Lazy::<pages::FleetRunRoute>::new()} ssr=SsrMode::Async />
                    <Route path=path!("skills") view={Lazy::<pages::SkillsRoute>::new()} ssr=SsrMode::Async />
                    <Route path=path!("mcp") view={Lazy::<pages::McpRoute>::new()} ssr=SsrMode::Async />
                    <Route path=path!("sessions") view={Lazy::<pages::SessionsRoute>::new()} ssr=SsrMode::Async />
                </ParentRoute>
                // The phone layout (the server answers 404 here unless --mobile).
                <ParentRoute path=path!("mobile") view=pages::MobileHome ssr=SsrMode::Async>
                    <Route path=path!("") view=pages::MobileStart ssr=SsrMode::Async />
                    <Route path=path!("threads/:id") view=pages::ThreadPage ssr=SsrMode::Async />
                </ParentRoute>
            </Routes>
        </Router>
    }
}
