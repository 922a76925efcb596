use crate::notify::{Notifier, Support};
use leptos::prelude::*;

/// Whether this page can notify, a button to allow it, and which features
/// need a secure context (said plainly: phones on plain http lack them).
#[component]
pub fn NotificationSettings() -> impl IntoView {
    let notifier = expect_context::<Notifier>();
    let support = notifier.support;
    let status = move || {
        match support.get() {
        Support::Unknown => "Notifications need JavaScript.",
        Support::Insecure => {
            "This page is not a secure context, so the browser allows no notifications and no installing."
        }
        Support::Unavailable => "This browser has no notifications here (on iPhone, add codewhale to the Home Screen first).",
        Support::Ask => "Get a notification when a thread needs you while this page is in the background.",
        Support::Granted => "Notifications are on.",
        Support::Denied => "Notifications are blocked for this site: allow them in the browser's site settings.",
    }
    };
    view! {
        <section class="card notifications" aria-labelledby="notifications-title" data-test="notifications">
            <h2 id="notifications-title">"Notifications"</h2>
            <p role="status" data-test="notification-status" data-support=move || support.get().as_str()>
                {status}
            </p>
            <Show when=move || support.get() == Support::Ask>
                <button type="button" class="primary" data-test="enable-notifications"
                    on:click=move |_| notifier.request()>"Enable notifications"</button>
            </Show>
            <p class="muted">
                "Notifications and installing the app need a secure context: HTTPS, or "
                <code>"localhost"</code>" / "<code>"127.0.0.1"</code>" on this computer. "
                "Plain http to a LAN address is not one. Without them, codewhale shows an alert "
                "in the page, counts in the tab's title and vibrates when it can."
            </p>
        </section>
    }
}

/// What was announced while the page was hidden and could not notify.
#[component]
pub fn MissedAlerts() -> impl IntoView {
    let notifier = expect_context::<Notifier>();
    let missed = notifier.missed;
    view! {
        <Show when=move || missed.with(|m| !m.is_empty())>
            <div class="missed" role="alert" data-test="missed-alerts">
                <ul>
                    {move || missed.get().into_iter().map(|m| view! {
                        <li>
                            <a href=m.href.clone() on:click=move |_| missed.set(Vec::new())>
                                <strong>{m.announcement.title.clone()}</strong>
                            </a>
                            " " <span>{m.announcement.body.clone()}</span>
                        </li>
                    }).collect_view()}
                </ul>
                <button type="button" data-test="dismiss-alerts" on:click=move |_| missed.set(Vec::new())>"Dismiss"</button>
            </div>
        </Show>
    }
}
