use leptos::prelude::*;

/// A failed action, said plainly.
#[component]
pub fn ErrorNotice(message: String) -> impl IntoView {
    view! {
        <p class="notice error" role="alert">
            {message}
        </p>
    }
}
