//! Record ids: a kind prefix plus random hex (`thr_…`, `turn_…`, `item_…`).

use crate::{random::random_secret, runtime::error::RuntimeError};

pub const THREAD: &str = "thr_";
pub const TURN: &str = "turn_";
pub const ITEM: &str = "item_";

pub fn new(prefix: &str) -> String {
    random_secret(prefix, 8)
}

/// Checks an id taken from a URL before it reaches a query: anything that is
/// not `prefix` + lowercase hex is refused (so ids can never carry path or
/// SQL characters), and an id that could exist but does not is a 404 later.
pub fn parse<'a>(prefix: &str, id: &'a str, what: &str) -> Result<&'a str, RuntimeError> {
    let valid = id.strip_prefix(prefix).is_some_and(|hex| {
        (1..=64).contains(&hex.len()) && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    });
    if valid {
        Ok(id)
    } else {
        Err(RuntimeError::Invalid(format!(
            "{what} id must look like {prefix}<hex>"
        )))
    }
}
