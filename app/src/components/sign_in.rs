use leptos::prelude::*;

/// What a visitor without a session sees: how to get in, and nothing else.
#[component]
pub fn SignIn() -> impl IntoView {
    view! {
        <main class="page narrow" aria-labelledby="sign-in-title">
            <h1 id="sign-in-title">"codewhale"</h1>
            <p>"This workbench belongs to the person who started it, and this browser is not signed in."</p>
            <p>
                "Open the one-time sign-in link that "<code>"codewhale web"</code>
                " printed in its terminal. Each link works once and only for ten minutes; "
                "for a fresh one, stop "<code>"codewhale web"</code>" and start it again."
            </p>
        </main>
    }
}
