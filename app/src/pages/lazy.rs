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

/// Every lazy page: its route, page, chunk, chunk loader and the path its
/// route has in `App` (lib.rs; a test checks they agree). Besides the
/// routes, this makes `load_page_code`, which the frontend awaits before
/// it hydrates the page the server rendered.
macro_rules! lazy_pages {
    ($($route:ident, $page:ident, $chunk:ident, $preload:ident, $path:literal;)*) => {
        $(lazy_page!($route, $page, $chunk, $preload);)*

        /// Each lazy route's name and path, as `App` routes them.
        #[cfg(test)]
        const LAZY_PATHS: &[(&str, &str)] = &[$((stringify!($route), $path)),*];

        /// Loads the code of the page the server rendered at `path`, if it
        /// is a lazy page, and of the components in it that are chunks
        /// (review cards): hydration is synchronous (vendor/README.md), so
        /// all of the page's code must be there before it starts. Returns
        /// once it is; if it cannot be had, the page loads again, once, and
        /// then this never returns (`preload_failed`).
        #[cfg(feature = "hydrate")]
        pub async fn load_page_code(path: &str) {
            $(if path_matches($path, path) {
                if $preload().await.is_err() {
                    crate::components::preload_failed().await;
                }
            })*
            // Chunks of components the server rendered into the page.
            crate::components::load_review_code().await;
        }
    };
}

lazy_pages! {
    UsageRoute, Usage, usage_page, preload_usage_page, "usage";
    DevicesRoute, Devices, devices_page, preload_devices_page, "devices";
    TasksRoute, Tasks, tasks_page, preload_tasks_page, "tasks";
    AutomationsRoute, Automations, automations_page, preload_automations_page, "automations";
    FleetRoute, Fleet, fleet_page, preload_fleet_page, "fleet";
    FleetRunRoute, FleetRunPage, fleet_run_page, preload_fleet_run_page, "fleet/:id";
    SkillsRoute, Skills, skills_page, preload_skills_page, "skills";
    McpRoute, McpServersPage, mcp_page, preload_mcp_page, "mcp";
    SessionsRoute, SessionsPage, sessions_page, preload_sessions_page, "sessions";
}

/// Whether a route `pattern` ("fleet/:id") matches a URL `path`
/// ("/fleet/f_1/"). Lenient about empty segments: loading a chunk the page
/// turns out not to need costs a fetch, missing one costs the hydration.
#[cfg_attr(not(any(test, feature = "hydrate")), allow(dead_code))]
fn path_matches(pattern: &str, path: &str) -> bool {
    let mut want = pattern.split('/').filter(|s| !s.is_empty());
    let mut got = path.split('/').filter(|s| !s.is_empty());
    loop {
        match (want.next(), got.next()) {
            (None, None) => return true,
            (Some(w), Some(_)) if w.starts_with(':') => {}
            (Some(w), Some(g)) if w == g => {}
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lazy_route_is_routed_at_the_path_its_preload_matches() {
        // Under the workbench's parent route (path ""), whose paths are
        // matched from the root: `load_page_code` assumes so.
        let lib = include_str!("../lib.rs");
        let start = lib
            .find(r#"<ParentRoute path=path!("") "#)
            .expect("the workbench's parent route");
        let end = start + lib[start..].find("</ParentRoute>").expect("its end");
        let routes = &lib[start..end];
        for (route, path) in LAZY_PATHS {
            let line = format!("path=path!(\"{path}\") view={{Lazy::<pages::{route}>::new()}}");
            assert!(
                routes.contains(&line),
                "lib.rs does not route {route} as `{line}`"
            );
        }
        assert_eq!(lib.matches("Lazy::<").count(), LAZY_PATHS.len());
    }

    #[test]
    fn paths_match_by_segment() {
        assert!(path_matches("usage", "/usage"));
        assert!(path_matches("usage", "/usage/"));
        assert!(path_matches("fleet/:id", "/fleet/f_1"));
        assert!(!path_matches("fleet/:id", "/fleet"));
        assert!(!path_matches("fleet", "/fleet/f_1"));
        assert!(!path_matches("usage", "/"));
        assert!(!path_matches("usage", "/threads/usage"));
        assert!(!path_matches("mcp", "/mcpx"));
    }
}
