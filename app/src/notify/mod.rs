//! Telling the user that a thread needs them while the page is in the
//! background: a system notification where the browser allows one (a
//! secure context, permission granted on a user gesture), otherwise an
//! in-page alert, a count in the title and a short vibration.

// The browser runs these; the server only renders the settings card.
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
mod browser;
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
mod text;

use crate::protocol::EventEnvelope;
use leptos::prelude::*;
pub use text::Announcement;

/// What this browser lets the page do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Support {
    /// Not known yet: the server renders this, the browser finds out.
    Unknown,
    /// Plain http to a LAN address: no notifications, no installing.
    Insecure,
    /// The browser has no Notification API.
    Unavailable,
    /// Allowed if the user says so (asked on a click only).
    Ask,
    Granted,
    Denied,
}

impl Support {
    /// For tests and styles (`data-support`).
    pub fn as_str(self) -> &'static str {
        match self {
            Support::Unknown => "unknown",
            Support::Insecure => "insecure",
            Support::Unavailable => "unavailable",
            Support::Ask => "ask",
            Support::Granted => "granted",
            Support::Denied => "denied",
        }
    }
}

/// A missed announcement, shown in the page until opened or dismissed.
#[derive(Clone, Debug, PartialEq)]
pub struct Missed {
    pub announcement: Announcement,
    pub href: String,
}

#[derive(Clone, Copy)]
pub struct Notifier {
    pub support: RwSignal<Support>,
    /// Announced without a system notification and not yet dismissed.
    pub missed: RwSignal<Vec<Missed>>,
    /// Announcements since the page was last visible (the title's count).
    unseen: RwSignal<u32>,
    /// A thread a clicked notification asks to open.
    open: RwSignal<Option<String>>,
}

impl Notifier {
    /// Provided by each layout (inside the router, which it navigates).
    pub fn provide() -> Notifier {
        let notifier = Notifier {
            support: RwSignal::new(Support::Unknown),
            missed: RwSignal::new(Vec::new()),
            unseen: RwSignal::new(0),
            open: RwSignal::new(None),
        };
        provide_context(notifier);
        let navigate = leptos_router::hooks::use_navigate();
        // Effects run in the browser only: there the real support is read
        // and the page starts watching its visibility.
        Effect::new(move |_| {
            notifier.support.set(browser::support());
            browser::on_visible(move || notifier.unseen.set(0));
        });
        Effect::new(move |_| browser::show_count(notifier.unseen.get()));
        Effect::new(move |_| {
            if let Some(href) = notifier.open.get() {
                navigate(&href, Default::default());
            }
        });
        notifier
    }

    /// Asks for permission; call from a click (browsers ignore it otherwise).
    pub fn request(self) {
        browser::request_permission(move |support| self.support.set(support));
    }

    /// Announces `event` of the thread at `href` if the page is hidden.
    #[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
    pub fn announce(self, event: &EventEnvelope, thread_title: Option<&str>, href: String) {
        if !browser::hidden() {
            return;
        }
        let Some(announcement) = Announcement::of(event, thread_title) else {
            return;
        };
        if self.support.get_untracked() == Support::Granted {
            let open = self.open;
            if browser::notify(&announcement, href.clone(), move |href| {
                open.set(Some(href))
            }) {
                return;
            }
        }
        self.unseen.update(|n| *n += 1);
        self.missed
            .update(|missed| missed.push(Missed { announcement, href }));
        browser::vibrate();
    }
}
