//! Tools a connected client runs for its turn in place of the runtime's
//! own: an editor's buffers and terminals (ACP `fs/*`, `terminal/*`) and
//! the MCP servers that client passed. They come with the turn's start
//! (`Runtime::start_turn_hosted`) and belong to that turn alone: another
//! client's turn on the same thread never sees them.
//!
//! Confinement stays the runtime's: a host only ever gets paths the
//! workspace confinement already resolved, and a command only the
//! workspace root as its directory.

use futures::future::BoxFuture;
use serde_json::Value;
use std::{path::PathBuf, sync::Arc, time::Duration};

/// An editor that holds the workspace's files (unsaved buffers included)
/// and runs commands in its own terminals.
pub trait Editor: Send + Sync {
    /// Which tools go through the editor.
    fn delegates(&self) -> Delegation;
    /// The file's text as the editor has it; `path` is absolute.
    fn read_text_file(&self, path: PathBuf) -> BoxFuture<'static, Result<String, String>>;
    /// Writes the file through the editor; `path` is absolute.
    fn write_text_file(
        &self,
        path: PathBuf,
        content: String,
    ) -> BoxFuture<'static, Result<(), String>>;
    /// Runs `sh -c command` in an editor terminal shown with the tool call
    /// `item_id`, until it exits or `timeout` passes (then it is killed).
    /// Dropping the future kills and releases the terminal.
    fn run_command(&self, command: EditorCommand)
        -> BoxFuture<'static, Result<CommandRun, String>>;
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delegation {
    pub read: bool,
    pub write: bool,
    pub terminal: bool,
}

#[derive(Clone, Debug)]
pub struct EditorCommand {
    pub item_id: String,
    pub command: String,
    pub cwd: PathBuf,
    pub timeout: Duration,
    pub output_limit: usize,
}

#[derive(Clone, Debug, Default)]
pub struct CommandRun {
    pub output: String,
    pub truncated: bool,
    pub exit_code: Option<i32>,
    pub signal: Option<String>,
    pub timed_out: bool,
    /// The editor's terminal, shown with the tool call.
    pub terminal_id: Option<String>,
}

/// Tools from outside the runtime (an MCP server's), offered to the model
/// under their own names.
pub trait ExtraTools: Send + Sync {
    /// OpenAI-style function specs, names already unique (`mcp__server__tool`).
    fn specs(&self) -> Vec<Value>;
    /// Whether `name` is one of these tools.
    fn has(&self, name: &str) -> bool;
    /// Whether calling `name` changes nothing (read-only modes offer only
    /// these).
    fn read_only(&self, name: &str) -> bool;
    /// Whether a call waits for the user's approval.
    fn asks(&self, name: &str) -> bool {
        !self.read_only(name)
    }
    /// Calls the tool; the text is what the model reads.
    fn call(&self, name: &str, arguments: Value) -> BoxFuture<'static, Result<String, String>>;
}

/// What one turn's client runs for it.
#[derive(Clone, Default)]
pub struct Hosted {
    pub editor: Option<Arc<dyn Editor>>,
    pub extra: Option<Arc<dyn ExtraTools>>,
}

impl Hosted {
    /// The extra tool set holding `name`, if any.
    pub fn extra_for(&self, name: &str) -> Option<&Arc<dyn ExtraTools>> {
        self.extra.as_ref().filter(|extra| extra.has(name))
    }
}

/// Two tool sets as one: the client's first (its names win), then the
/// configured MCP servers'.
pub struct Joined(pub Arc<dyn ExtraTools>, pub Arc<dyn ExtraTools>);

impl Joined {
    fn holder(&self, name: &str) -> &Arc<dyn ExtraTools> {
        if self.0.has(name) {
            &self.0
        } else {
            &self.1
        }
    }
}

impl ExtraTools for Joined {
    fn specs(&self) -> Vec<Value> {
        let mut specs = self.0.specs();
        specs.extend(self.1.specs().into_iter().filter(|spec| {
            spec["function"]["name"]
                .as_str()
                .is_some_and(|name| !self.0.has(name))
        }));
        specs
    }

    fn has(&self, name: &str) -> bool {
        self.0.has(name) || self.1.has(name)
    }

    fn read_only(&self, name: &str) -> bool {
        self.holder(name).read_only(name)
    }

    fn asks(&self, name: &str) -> bool {
        self.holder(name).asks(name)
    }

    fn call(&self, name: &str, arguments: Value) -> BoxFuture<'static, Result<String, String>> {
        self.holder(name).call(name, arguments)
    }
}
