//! The browser APIs behind notifications. Called only from effects and
//! event handlers, which run in the browser.

use super::{text::with_count, Announcement, Support};
use leptos::{
    prelude::*,
    wasm_bindgen::{closure::Closure, JsCast, JsValue},
    web_sys::{js_sys, Notification, NotificationOptions, NotificationPermission},
};

/// Whether the page is in the background (another tab, a locked phone).
pub fn hidden() -> bool {
    document().hidden()
}

/// Notifications need a secure context and the API itself (absent from
/// some mobile browsers outside an installed app); then the permission.
pub fn support() -> Support {
    let window = window();
    if !window.is_secure_context() {
        return Support::Insecure;
    }
    // Calling into a missing class would throw: look for it first.
    if !js_sys::Reflect::has(&window, &JsValue::from_str("Notification")).unwrap_or(false) {
        return Support::Unavailable;
    }
    from_permission(Notification::permission())
}

fn from_permission(permission: NotificationPermission) -> Support {
    match permission {
        NotificationPermission::Granted => Support::Granted,
        NotificationPermission::Denied => Support::Denied,
        _ => Support::Ask,
    }
}

pub fn request_permission(done: impl Fn(Support) + 'static) {
    if support() != Support::Ask {
        return done(support());
    }
    let Ok(promise) = Notification::request_permission() else {
        return done(Support::Unavailable);
    };
    let answered =
        Closure::once(move |_: JsValue| done(from_permission(Notification::permission())));
    let _ = promise.then(&answered);
    answered.forget();
}

/// Shows a system notification; clicking it brings the window forward and
/// calls `open` with `href`. False if the browser refused to show it.
pub fn notify(announcement: &Announcement, href: String, open: impl Fn(String) + 'static) -> bool {
    let options = NotificationOptions::new();
    options.set_body(&announcement.body);
    options.set_tag(&announcement.tag);
    options.set_icon("/icons/icon-192.png");
    let Ok(notification) = Notification::new_with_options(&announcement.title, &options) else {
        return false;
    };
    let shown = notification.clone();
    let on_click = Closure::<dyn FnMut()>::new(move || {
        let _ = window().focus();
        open(href.clone());
        shown.close();
    });
    notification.set_onclick(Some(on_click.as_ref().unchecked_ref()));
    on_click.forget();
    true
}

/// A short buzz where the device has a motor (and the page may use it).
pub fn vibrate() {
    let _ = window().navigator().vibrate_with_duration(200);
}

/// Puts `(n) ` before the page title, or takes it away for 0.
pub fn show_count(count: u32) {
    let document = document();
    let title = document.title();
    let counted = with_count(&title, count);
    if counted != title {
        document.set_title(&counted);
    }
}

/// Runs `seen` whenever the page becomes visible, until the owner goes.
pub fn on_visible(seen: impl Fn() + 'static) {
    let listener = Closure::<dyn FnMut()>::new(move || {
        if !hidden() {
            seen();
        }
    });
    let _ = document()
        .add_event_listener_with_callback("visibilitychange", listener.as_ref().unchecked_ref());
    let listener = StoredValue::new_local(listener);
    on_cleanup(move || {
        listener.try_with_value(|listener| {
            let _ = document().remove_event_listener_with_callback(
                "visibilitychange",
                listener.as_ref().unchecked_ref(),
            );
        });
    });
}
