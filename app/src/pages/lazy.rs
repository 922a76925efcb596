//! The pages a thread does not need, as lazy routes: each one's code is a
//! chunk of its own (scripts/build cuts the wasm at these points) that the
//! browser fetches when the page is first shown, so the bundle every page
//! loads holds only the frame, the rail and the thread view.
//!
//! Written out rather than with `#[lazy_route]`: that macro's loader
//! panics when a chunk cannot be fetched, and a panic aborts the whole
//! module. A tab left open across an upgrade asks for chunks under its own
//! build's path (server/src/http/assets.rs), which the new server refuses;
//! that page then says so (`components::code_unavailable`).

use leptos::prelude::*;
use leptos_router::LazyRoute;

/// One route per page: `$route` for the router, `$chunk` the split point
/// (in the browser build) that holds `$page`'s code, `$preload` the loader
/// of that chunk alone.
macro_rules! lazy_page {
    ($route:ident, $page:ident, $chunk:ident, $preload:ident) => {
        pub struct $route;

        impl LazyRoute for $route {
            // Nothing to load ahead: each page makes its own resources, which
            // the server already resolved and wrote into the page it rendered.
            fn data() -> Self {
                Self
            }

            async fn view(_this: Self) -> AnyView {
                #[cfg(feature = "hydrate")]
                return $chunk().await.unwrap_or_else(|_| {
                    view! {
                        <section class="background-page">
                            {crate::components::code_unavailable("This page's code")}
                        </section>
                    }
                    .into_any()
                });
                #[cfg(not(feature = "hydrate"))]
                view! { <super::$page /> }.into_any()
            }

            // The router loads the chunk here before it shows (or hydrates)
            // the page.
            async fn preload() {
                #[cfg(feature = "hydrate")]
                if $preload().await.is_err() {
                    crate::components::preload_failed().await;
                }
            }
        }

        #[cfg(feature = "hydrate")]
        #[leptos::wasm_split::wasm_split($chunk, wasm_split_path = ::leptos::wasm_split, preload($preload), fallible)]
        fn $chunk() -> Result<AnyView, leptos::wasm_split::SplitLoaderError> {
            Ok(view! { <super::$page /> }.into_any())
        }
    };
}

lazy_page!(UsageRoute, Usage, usage_page, preload_usage_page);
lazy_page!(DevicesRoute, Devices, devices_page, preload_devices_page);
lazy_page!(TasksRoute, Tasks, tasks_page, preload_tasks_page);
lazy_page!(
    AutomationsRoute,
    Automations,
    automations_page,
    preload_automations_page
);
lazy_page!(FleetRoute, Fleet, fleet_page, preload_fleet_page);
lazy_page!(
    FleetRunRoute,
    FleetRunPage,
    fleet_run_page,
    preload_fleet_run_page
);
lazy_page!(SkillsRoute, Skills, skills_page, preload_skills_page);
lazy_page!(McpRoute, McpServersPage, mcp_page, preload_mcp_page);
lazy_page!(
    SessionsRoute,
    SessionsPage,
    sessions_page,
    preload_sessions_page
);
