use crate::error::ServiceError;
use leptos::prelude::*;

/// The error of an action's last run (with its HTTP status), if any.
pub fn failure<I: 'static, O: 'static>(
    action: Action<I, Result<O, ServiceError>>,
) -> Signal<Option<String>> {
    Signal::derive(move || {
        action.value().with(|result| match result {
            Some(Err(error)) => Some(error.to_string()),
            _ => None,
        })
    })
}

/// Shows a failed action's message.
#[component]
pub fn ErrorLine(error: Signal<Option<String>>) -> impl IntoView {
    move || {
        error
            .get()
            .map(|message| view! { <p class="error" role="alert">{message}</p> })
    }
}
