use crate::{session::SessionEnded, surface::Surface};
use leptos::prelude::*;

/// Said once the server answers 401: the session expired or this device
/// was revoked, and how to get back in.
#[component]
pub fn SessionEndedNotice() -> impl IntoView {
    let ended = expect_context::<SessionEnded>().0;
    let surface = Surface::current();
    let how = move || {
        match surface {
        Surface::Mobile => view! {
            <p>
                "To pair again, scan a new QR code on the computer running codewhale (the workbench's "
                <strong>"Pair a phone"</strong>" button, or "<code>"codewhale pair"</code>
                " in its terminal), or "<a href="/mobile" rel="external">"type the runtime token"</a>"."
            </p>
        }
        .into_any(),
        Surface::Desktop => view! {
            <p>"Open a fresh sign-in link from the terminal running codewhale."</p>
        }
        .into_any(),
    }
    };
    view! {
        <Show when=move || ended.get()>
            <div class="session-ended" role="alert" data-test="session-ended">
                <p><strong>"This session has ended."</strong>" It expired, or this device was revoked."</p>
                {how}
            </div>
        </Show>
    }
}
