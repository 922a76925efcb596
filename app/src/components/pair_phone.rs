use crate::{
    api::{create_pairing, list_devices},
    components::minutes_until,
    error::ServiceError,
    protocol::PairingCreated,
    session::SessionEnded,
};
use leptos::prelude::*;

type Minted = Option<Result<PairingCreated, ServiceError>>;

/// "Pair a phone": mints a one-time link and shows it as a QR code, as
/// text, with its expiry and the certificate fingerprint. The link is a
/// secret: it lives only in this dialog and is dropped when it closes.
#[component]
pub fn PairPhone() -> impl IntoView {
    let minted = RwSignal::new(None::<Result<PairingCreated, ServiceError>>);
    let dialog = NodeRef::<leptos::html::Dialog>::new();
    let ended = use_context::<SessionEnded>();
    // The devices before the link exists: any other is the phone that used it.
    let known = StoredValue::new(None::<Vec<String>>);
    let open = move |_| {
        minted.set(None);
        if let Some(dialog) = dialog.get_untracked() {
            let _ = dialog.show_modal();
        }
        leptos::task::spawn_local(async move {
            let before = list_devices().await.ok();
            known.set_value(before.map(|devices| devices.into_iter().map(|d| d.id).collect()));
            let result = create_pairing(None).await;
            if let (Err(error), Some(ended)) = (&result, ended) {
                ended.note(error);
            }
            minted.set(Some(result));
        });
    };
    let close = move |_| {
        if let Some(dialog) = dialog.get_untracked() {
            dialog.close();
        }
    };
    view! {
        <button type="button" class="primary" data-test="pair-phone" on:click=open>"Pair a phone"</button>
        // Esc closes it too: either way the link leaves the page.
        <dialog class="pairing" node_ref=dialog aria-labelledby="pairing-title" on:close=move |_| minted.set(None)>
            <h2 id="pairing-title">"Pair a phone"</h2>
            <PairingBody minted known />
            <div class="actions">
                <a href="/devices" on:click=close>"Manage devices"</a>
                <button type="button" on:click=close>"Close"</button>
            </div>
        </dialog>
    }
}

#[component]
fn PairingBody(minted: RwSignal<Minted>, known: StoredValue<Option<Vec<String>>>) -> impl IntoView {
    move || match minted.get() {
        None => view! { <p class="muted">"Creating a one-time link…"</p> }.into_any(),
        Some(Err(error)) => {
            view! { <p class="error" role="alert">{error.to_string()}</p> }.into_any()
        }
        Some(Ok(pairing)) => view! { <PairingLink pairing known /> }.into_any(),
    }
}

#[component]
fn PairingLink(pairing: PairingCreated, known: StoredValue<Option<Vec<String>>>) -> impl IntoView {
    let url = pairing.url.clone();
    let copied = RwSignal::new(false);
    let copy = move |_| {
        let _ = window().navigator().clipboard().write_text(&url);
        copied.set(true);
    };
    let expires = relative_until(&pairing.expires_at);
    view! {
        <p>"Scan this with the phone's camera, on the same network as this computer:"</p>
        // Our own server's SVG (rendered by the qrcode crate): paths only.
        <div class="qr" data-test="pairing-qr" role="img" aria-label="QR code of the pairing link"
            inner_html=svg_body(&pairing.qr_svg)></div>
        <p class="pairing-url">
            <code data-test="pairing-url">{pairing.url.clone()}</code>
            <button type="button" on:click=copy>{move || if copied.get() { "Copied" } else { "Copy" }}</button>
        </p>
        <p class="muted" data-test="pairing-expiry">
            "Works once, " {expires} " (" <time datetime=pairing.expires_at.clone()>{pairing.expires_at.clone()}</time> ")."
        </p>
        {pairing.tls_fingerprint.map(|fingerprint| view! {
            <p class="fingerprint" data-test="pairing-fingerprint">
                "The phone will warn about the certificate: continue only if its SHA-256 fingerprint is "
                <code>{fingerprint}</code>"."
            </p>
        })}
        <PairedNotice known />
    }
}

/// Watches the device list while the link is shown, and says so once a
/// device not `known` before appears: the phone has paired.
#[component]
fn PairedNotice(known: StoredValue<Option<Vec<String>>>) -> impl IntoView {
    let paired = RwSignal::new(None::<String>);
    // The dialog may close while a poll is in flight: only try_ access.
    let poll = move || {
        leptos::task::spawn_local(async move {
            let Ok(devices) = list_devices().await else {
                return;
            };
            match known.try_get_value().flatten() {
                None => {
                    known.try_set_value(Some(devices.into_iter().map(|d| d.id).collect()));
                }
                Some(before) => {
                    if let Some(new) = devices.into_iter().find(|d| !before.contains(&d.id)) {
                        paired.try_set(Some(new.name));
                    }
                }
            }
        });
    };
    Effect::new(move |_| {
        poll();
        let every = std::time::Duration::from_secs(2);
        let waiting = move || {
            if paired.try_get_untracked().flatten().is_none() {
                poll();
            }
        };
        if let Ok(handle) = set_interval_with_handle(waiting, every) {
            on_cleanup(move || handle.clear());
        }
    });
    move || {
        paired.get().map(|name| {
            view! {
                <p class="paired" role="status" data-test="paired">
                    "Paired: " <strong>{name}</strong> ". That phone is signed in, and this link no longer works."
                </p>
            }
        })
    }
}

/// The `<svg>` element of an SVG document (an XML prolog means nothing
/// inside HTML).
fn svg_body(document: &str) -> String {
    document
        .find("<svg")
        .map(|start| document[start..].to_string())
        .unwrap_or_default()
}

/// "for the next 5 minutes" from an RFC 3339 expiry.
fn relative_until(expires_at: &str) -> String {
    match minutes_until(expires_at) {
        Some(minutes) if minutes > 1 => format!("for the next {minutes} minutes"),
        Some(_) => "for about a minute".to_string(),
        None => "for a few minutes".to_string(),
    }
}
