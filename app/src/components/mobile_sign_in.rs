use leptos::prelude::*;
use leptos_meta::Meta;

/// `/mobile` for a phone that is not paired: how to pair, and a typed-token
/// fallback. The form posts straight to the server, which exchanges the
/// token for the device cookie; no script ever reads the field and the
/// browser is asked not to keep it.
#[component]
pub fn MobileSignIn() -> impl IntoView {
    view! {
        // The server checks the form's Origin; under the site-wide
        // `no-referrer` policy browsers send `Origin: null` instead. This
        // page's requests to its own origin carry it; others carry nothing.
        <Meta name="referrer" content="same-origin" />
        <main class="page narrow mobile-sign-in" aria-labelledby="pair-title" data-test="mobile-sign-in">
            <h1 id="pair-title">"Pair this phone"</h1>
            <p>"This phone is not paired with codewhale (or its session has ended)."</p>
            <ol class="steps">
                <li>
                    "On the computer running codewhale, press "<strong>"Pair a phone"</strong>
                    " in the workbench, or run "<code>"codewhale pair"</code>" in a terminal."
                </li>
                <li>"Scan the QR code it shows with this phone's camera and open the link. Each link works once, for a few minutes."</li>
            </ol>
            <details class="token-fallback">
                <summary>"Can't scan? Type the runtime token instead"</summary>
                <form method="post" action="/__codewhale/pair/token" class="stack" autocomplete="off">
                    <label>
                        "Runtime token"
                        <input type="password" name="token" required autocomplete="off"
                            autocapitalize="off" spellcheck="false" data-test="pair-token" />
                    </label>
                    <button type="submit" class="primary" data-test="pair-with-token">"Pair"</button>
                </form>
            </details>
        </main>
    }
}
