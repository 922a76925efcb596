//! Record ids: a kind prefix plus random hex (`thr_…`, `turn_…`, `item_…`).

use crate::{random::random_secret, runtime::error::RuntimeError};

pub const THREAD: &str = "thr_";
pub const TURN: &str = "turn_";
pub const ITEM: &str = "item_";
pub const APPROVAL: &str = "appr_";
pub const USER_INPUT: &str = "input_";
pub const TOOL_CALL: &str = "call_";
pub const TASK: &str = "task_";
pub const AUTOMATION: &str = "auto_";
pub const AUTOMATION_RUN: &str = "arun_";
pub const FLEET_RUN: &str = "fleet_";
pub const FLEET_WORKER: &str = "worker_";
/// The longest hex part an id may have.
const MAX_HEX: usize = 64;

pub fn new(prefix: &str) -> String {
    random_secret(prefix, 8)
}

/// What `parse` accepts, as a JSON Schema pattern (for the API document).
pub fn pattern(prefix: &str) -> String {
    format!("^{prefix}[0-9a-f]{{1,{MAX_HEX}}}$")
}

/// Checks an id taken from a URL before it reaches a query: anything that is
/// not `prefix` + lowercase hex is refused (so ids can never carry path or
/// SQL characters), and an id that could exist but does not is a 404 later.
pub fn parse<'a>(prefix: &str, id: &'a str, what: &str) -> Result<&'a str, RuntimeError> {
    let valid = id.strip_prefix(prefix).is_some_and(|hex| {
        (1..=MAX_HEX).contains(&hex.len())
            && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    });
    if valid {
        Ok(id)
    } else {
        Err(RuntimeError::Invalid(format!(
            "{what} id must look like {prefix}<hex>"
        )))
    }
}
