use crate::{
    api::create_pairing, components::minutes_until, error::ServiceError, protocol::PairingCreated,
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
    let open = move |_| {
        minted.set(None);
        if let Some(dialog) = dialog.get_untracked() {
            let _ = dialog.show_modal();
        }
        leptos::task::spawn_local(async move {
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
            <PairingBody minted />
            <div class="actions">
                <a href="/devices" on:click=close>"Manage devices"</a>
                <button type="button" on:click=close>"Close"</button>
            </div>
        </dialog>
    }
}

#[component]
fn PairingBody(minted: RwSignal<Minted>) -> impl IntoView {
    move || match minted.get() {
        None => view! { <p class="muted">"Creating a one-time link…"</p> }.into_any(),
        Some(Err(error)) => {
            view! { <p class="error" role="alert">{error.to_string()}</p> }.into_any()
        }
        Some(Ok(pairing)) => view! { <PairingLink pairing /> }.into_any(),
    }
}

#[component]
fn PairingLink(pairing: PairingCreated) -> impl IntoView {
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
