//! The server-function calls only a user's action makes (send, approve,
//! fork, retry…), in the browser. Each call's code (its arguments'
//! encoding, its reply's decoding: the records' `Deserialize`) is in one
//! chunk of the bundle, fetched the first time the user acts on the page,
//! rather than in the bundle every page loads.
//!
//! Same names and signatures as the server functions: `api/mod.rs`
//! re-exports these over them in the browser build, so components call
//! `api::start_turn` either way. A call whose chunk cannot be fetched (a
//! tab of an older build, a stopped server) fails like an unreachable
//! server: status 0, said where the action's errors are.

use crate::error::ServiceError;
use crate::protocol as p;
use std::{future::Future, pin::Pin};

/// A call made in the chunk, awaited by the caller.
type Call<T> = Pin<Box<dyn Future<Output = Result<T, ServiceError>> + Send>>;

macro_rules! on_demand {
    ($($name:ident($($arg:ident: $ty:ty),*) -> $out:ty = $call:path;)*) => {
        $(
            pub async fn $name($($arg: $ty),*) -> Result<$out, ServiceError> {
                // `.ok()`: the loader's error is not `Send`; the call is.
                let loaded = chunk::$name($($arg),*).await.ok();
                match loaded {
                    Some(call) => call.await,
                    None => Err(ServiceError::new(
                        0,
                        "the code for this action could not be loaded; reload the page (codewhale was stopped, or updated since this tab opened)",
                    )),
                }
            }
        )*

        mod chunk {
            use super::*;
            $(
                #[leptos::wasm_split::wasm_split(clicks, wasm_split_path = ::leptos::wasm_split, fallible)]
                pub fn $name($($arg: $ty),*) -> Result<Call<$out>, leptos::wasm_split::SplitLoaderError> {
                    Ok(Box::pin($call($($arg),*)))
                }
            )*
        }
    };
}

on_demand! {
    create_thread(request: p::CreateThread) -> p::ThreadRecord = super::super::threads::create_thread;
    update_thread(id: String, patch: p::PatchThread) -> p::ThreadRecord = super::super::threads::update_thread;
    fork_thread(id: String) -> p::ThreadRecord = super::super::threads::fork_thread;
    start_turn(id: String, prompt: String) -> p::TurnStarted = super::super::threads::start_turn;
    steer_turn(id: String, turn: String, prompt: String) -> () = super::super::threads::steer_turn;
    interrupt_turn(id: String, turn: String) -> () = super::super::threads::interrupt_turn;
    decide_approval(id: String, decision: p::ApprovalDecision, remember: bool) -> () = super::super::threads::decide_approval;
    answer_user_input(thread: String, input: String, answers: p::AnswerUserInput) -> () = super::super::threads::answer_user_input;
    retry_last_turn(id: String) -> () = super::super::changes::retry_last_turn;
    edit_last_prompt(id: String, prompt: String) -> () = super::super::changes::edit_last_prompt;
    fork_at_message(id: String, item_id: String) -> String = super::super::changes::fork_at_message;
    restore_files(id: String, snapshot_id: String) -> p::Restored = super::super::changes::restore_files;
    apply_finding(id: String, finding_id: String) -> () = super::super::changes::apply_finding;
    revert_action(id: String, action_id: String) -> p::TurnItemRecord = super::super::changes::revert_action;
    create_pairing(label: Option<String>) -> p::PairingCreated = super::super::devices::create_pairing;
}
