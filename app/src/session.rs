//! A session that ends while the page is open: the server answers 401 once
//! a session expires or its device is revoked, on server functions and on
//! the event stream alike. The page then says so once, in one place,
//! instead of retrying or showing raw errors.

use crate::error::ServiceError;
use leptos::prelude::*;

/// Set once any call finds the session gone.
#[derive(Clone, Copy)]
pub struct SessionEnded(pub RwSignal<bool>);

impl SessionEnded {
    pub fn provide() {
        provide_context(SessionEnded(RwSignal::new(false)));
    }

    /// Marks the session ended if `error` says so.
    pub fn note(self, error: &ServiceError) {
        if error.status == 401 && !self.0.get_untracked() {
            self.0.set(true);
        }
    }
}
