//! A long thread's page holds its newest items (`WINDOW`); the older ones
//! are fetched in one request once the page is interactive, off the path
//! to hydration, and put in front. The transcript shows them a page at a
//! time; the Changes panel and the last-message lookup see them all.

use super::{Entry, Live};
use crate::{api::ThreadPage, protocol::TurnItemRecord};
use leptos::prelude::*;
use std::collections::HashSet;

impl Live {
    /// The state of a thread page as it opens.
    pub fn open(page: ThreadPage) -> Self {
        let live = Self::new(page.detail);
        live.missing.set(page.earlier);
        live
    }

    /// A fresh page after a gap. Older items fetched before are dropped
    /// with the rest: `missing` says how many to fetch again.
    pub fn reset_page(&self, page: ThreadPage) {
        self.reset(page.detail);
        self.missing.set(page.earlier);
    }

    /// Puts the fetched older items in front. An item the stream already
    /// added (an old one that changed since) keeps its place and entry.
    pub fn prepend(&self, older: Vec<TurnItemRecord>) {
        let count = older.len();
        self.items.update(|items| {
            let known: HashSet<String> = items.iter().map(|e| e.id.get_value()).collect();
            let mut all: Vec<Entry> = older
                .into_iter()
                .filter(|record| !known.contains(&record.id))
                .map(Entry::new)
                .collect();
            all.append(items);
            *items = all;
        });
        self.missing
            .update(|missing| *missing = missing.saturating_sub(count));
    }
}

/// Fetches the older items whenever some are missing (on open, and again
/// after a fresh page). On failure they stay missing: the transcript's
/// button then loads `?from=N` as a page, as it does without JavaScript.
#[cfg(feature = "hydrate")]
pub fn fetch_older(live: Live) {
    Effect::new(move |_| {
        let missing = live.missing.get();
        if missing == 0 {
            return;
        }
        let id = live.thread.with_untracked(|t| t.id.clone());
        leptos::task::spawn_local(async move {
            if let Ok(older) = crate::api::load_items(id, 0, missing).await {
                // A fresh page since the request counts its own.
                if live.missing.try_get_untracked() == Some(missing) {
                    live.prepend(older);
                }
            }
        });
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn item(id: &str) -> TurnItemRecord {
        serde_json::from_value(
            json!({"id": id, "turn_id": "turn_1", "kind": "agent_message",
            "status": "completed", "summary": "", "detail": id, "metadata": {},
            "started_at": null, "ended_at": null}),
        )
        .unwrap()
    }

    fn page(ids: &[&str], earlier: usize) -> ThreadPage {
        let mut detail = super::super::state::tests::detail();
        detail.items = ids.iter().map(|id| item(id)).collect();
        ThreadPage { detail, earlier }
    }

    fn ids(live: &Live) -> Vec<String> {
        live.items
            .with_untracked(|items| items.iter().map(|e| e.id.get_value()).collect())
    }

    #[test]
    fn older_items_go_in_front_once() {
        let owner = Owner::new();
        owner.set();
        let live = Live::open(page(&["c", "d"], 2));
        assert_eq!(live.missing.get_untracked(), 2);
        live.prepend(vec![item("a"), item("b")]);
        assert_eq!(ids(&live), ["a", "b", "c", "d"]);
        assert_eq!(live.missing.get_untracked(), 0);
    }

    #[test]
    fn an_old_item_the_stream_already_added_is_not_repeated() {
        let owner = Owner::new();
        owner.set();
        let live = Live::open(page(&["c", "d", "b"], 2));
        let streamed = live.items.with_untracked(|items| items[2]);
        live.prepend(vec![item("a"), item("b")]);
        assert_eq!(ids(&live), ["a", "c", "d", "b"]);
        let kept = live.items.with_untracked(|items| items[3]);
        assert_eq!(kept.text, streamed.text, "the streamed entry is kept");
        assert_eq!(live.missing.get_untracked(), 0);
    }

    #[test]
    fn a_fresh_page_drops_older_items_and_counts_them_again() {
        let owner = Owner::new();
        owner.set();
        let live = Live::open(page(&["c", "d"], 2));
        live.prepend(vec![item("a"), item("b")]);
        live.reset_page(page(&["d", "e"], 3));
        assert_eq!(ids(&live), ["d", "e"]);
        assert_eq!(live.missing.get_untracked(), 3);
    }
}
