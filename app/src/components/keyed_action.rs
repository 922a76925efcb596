use crate::{error::ServiceError, session::SessionEnded};
use leptos::prelude::*;
use std::future::Future;

/// An action on one of a list's rows, owned by the page rather than the
/// row: a polled list rebuilds its rows, and the row's "pending" and error
/// must outlive that. The input is (row id, what to do).
pub type RowAction<C> = Action<(String, C), Result<(), (String, ServiceError)>>;

pub fn row_action<C, F, Fut>(run: F) -> RowAction<C>
where
    C: Clone + Send + Sync + 'static,
    F: Fn(String, C) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<(), ServiceError>> + Send + 'static,
{
    let ended = use_context::<SessionEnded>();
    Action::new(move |(id, command): &(String, C)| {
        let id = id.clone();
        let work = run(id.clone(), command.clone());
        async move {
            work.await.map_err(|error| {
                if let Some(ended) = ended {
                    ended.note(&error);
                }
                (id, error)
            })
        }
    })
}

/// The action's last error, if it was about row `id`.
pub fn row_error<C: 'static>(action: RowAction<C>, id: String) -> Signal<Option<String>> {
    Signal::derive(move || {
        action.value().with(|result| match result {
            Some(Err((row, error))) if *row == id => Some(error.to_string()),
            _ => None,
        })
    })
}

/// Whether the action is running for row `id`.
pub fn row_pending<C: 'static>(action: RowAction<C>, id: String) -> Signal<bool> {
    Signal::derive(move || {
        action.pending().get()
            && action
                .input()
                .with(|input| matches!(input, Some((row, _)) if *row == id))
    })
}
