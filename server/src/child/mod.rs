//! Processes codewhale starts. They get the scrubbed environment from
//! `env`; git is also kept from running programs the repository names
//! (`git`).

pub mod env;
pub mod git;
