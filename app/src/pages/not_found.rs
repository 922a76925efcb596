use leptos::prelude::*;

#[component]
pub fn NotFound() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::NOT_FOUND);
    }
    view! {
        <main class="page narrow">
            <h1>"Not found"</h1>
            <p>"Nothing lives at this address. "<a href="/">"Back to codewhale"</a></p>
        </main>
    }
}
