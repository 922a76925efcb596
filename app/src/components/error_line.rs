use leptos::prelude::*;

/// The error of an action's last run (with its HTTP status), if any.
pub fn failure<I: 'static, O: 'static>(
    action: Action<I, Result<O, ServerFnError>>,
) -> Signal<Option<String>> {
    Signal::derive(move || {
        action.value().with(|result| match result {
            Some(Err(error)) => Some(readable(error)),
            _ => None,
        })
    })
}

/// What a user reads: the server's message ("HTTP 400: …") without Leptos'
/// "error running server function" prefix, or why the server was unreachable.
pub fn readable(error: &ServerFnError) -> String {
    match error {
        ServerFnError::ServerError(message) => message.clone(),
        ServerFnError::Request(message) => format!("Could not reach codewhale: {message}"),
        other => other.to_string(),
    }
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
