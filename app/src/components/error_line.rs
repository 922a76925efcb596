use crate::{error::ServiceError, session::SessionEnded};
use leptos::prelude::*;

/// The error of an action's last run (with its HTTP status), if any. A
/// 401 also tells the page that its session has ended.
pub fn failure<I: 'static, O: 'static>(
    action: Action<I, Result<O, ServiceError>>,
) -> Signal<Option<String>> {
    let ended = use_context::<SessionEnded>();
    Effect::new(move |_| {
        action.value().with(|result| {
            if let (Some(Err(error)), Some(ended)) = (result, ended) {
                ended.note(error);
            }
        })
    });
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
