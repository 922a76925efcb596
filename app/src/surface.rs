//! Which face of the app a page belongs to: the desktop workbench (`/`) or
//! the phone layout (`/mobile`). Both show the same components; only their
//! links differ, so components ask the surface where a thread lives.

use leptos::prelude::*;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Surface {
    #[default]
    Desktop,
    Mobile,
}

impl Surface {
    /// The layout's own surface, provided by it (desktop when none is).
    pub fn current() -> Surface {
        use_context::<Surface>().unwrap_or_default()
    }

    pub fn thread_href(self, id: &str) -> String {
        match self {
            Surface::Desktop => format!("/threads/{id}"),
            Surface::Mobile => format!("/mobile/threads/{id}"),
        }
    }

    /// The thread a path shows, on either surface.
    pub fn thread_in_path(path: &str) -> Option<String> {
        let path = path.strip_prefix("/mobile").unwrap_or(path);
        path.strip_prefix("/threads/")
            .map(|id| id.trim_end_matches('/').to_string())
            .filter(|id| !id.is_empty() && !id.contains('/'))
    }
}

#[cfg(test)]
mod tests {
    use super::Surface;

    #[test]
    fn threads_are_found_on_both_surfaces() {
        assert_eq!(
            Surface::thread_in_path("/threads/thr_1"),
            Some("thr_1".into())
        );
        assert_eq!(
            Surface::thread_in_path("/mobile/threads/thr_1/"),
            Some("thr_1".into())
        );
        assert_eq!(Surface::thread_in_path("/mobile"), None);
        assert_eq!(Surface::thread_in_path("/threads/"), None);
        assert_eq!(Surface::thread_in_path("/usage"), None);
        assert_eq!(Surface::thread_in_path("/mobilethreads/x"), None);
    }

    #[test]
    fn links_stay_on_their_surface() {
        assert_eq!(
            Surface::Mobile.thread_href("thr_1"),
            "/mobile/threads/thr_1"
        );
        assert_eq!(Surface::Desktop.thread_href("thr_1"), "/threads/thr_1");
    }
}
