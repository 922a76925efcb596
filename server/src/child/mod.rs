//! Every process codewhale starts: commands the model runs, git, and the
//! browser opener. They all get the scrubbed environment from `env`; git
//! is also kept from running programs the repository names (`git`).

pub mod env;
pub mod git;
pub mod open;
pub mod worktree;
