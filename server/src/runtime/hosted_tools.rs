//! Tools a connected client runs for a thread in place of the runtime's
//! own: an editor's buffers and terminals (ACP `fs/*`, `terminal/*`) and
//! the MCP servers that client passed. The client attaches them to a
//! thread while it drives a turn there; a turn takes what is attached when
//! it starts and keeps it to its end.
//!
//! Confinement stays the runtime's: a host only ever gets paths the
//! workspace confinement already resolved, and a command only the
//! workspace root as its directory.

use futures::future::BoxFuture;
use serde_json::Value;
use std::{
    collections::HashMap,
    path::PathBuf,
    sync::{Arc, Mutex},
    time::Duration,
};

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
    /// Whether calling `name` changes nothing (it then runs unasked).
    fn read_only(&self, name: &str) -> bool;
    /// Calls the tool; the text is what the model reads.
    fn call(&self, name: &str, arguments: Value) -> BoxFuture<'static, Result<String, String>>;
}

/// What one thread has attached.
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

/// Thread id → what is attached there, in this process.
#[derive(Clone, Default)]
pub struct HostedTools(Arc<Mutex<Attachments>>);

#[derive(Default)]
struct Attachments {
    /// Counts attachments, so a guard removes only its own.
    next: u64,
    threads: HashMap<String, (u64, Hosted)>,
}

impl HostedTools {
    /// Attaches `hosted` to the thread until the returned guard drops
    /// (a later attach replaces it; the earlier guard then does nothing).
    pub fn attach(&self, thread_id: &str, hosted: Hosted) -> Attached {
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        map.next += 1;
        let generation = map.next;
        map.threads
            .insert(thread_id.to_string(), (generation, hosted));
        Attached {
            tools: self.clone(),
            thread_id: thread_id.to_string(),
            generation,
        }
    }

    pub fn get(&self, thread_id: &str) -> Hosted {
        let map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        map.threads
            .get(thread_id)
            .map(|(_, h)| h.clone())
            .unwrap_or_default()
    }
}

/// Detaches on drop.
pub struct Attached {
    tools: HostedTools,
    thread_id: String,
    generation: u64,
}

impl Drop for Attached {
    fn drop(&mut self) {
        let mut map = self.tools.0.lock().unwrap_or_else(|p| p.into_inner());
        let own = map.threads.get(&self.thread_id).map(|(g, _)| *g) == Some(self.generation);
        if own {
            map.threads.remove(&self.thread_id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replaced_attachment_is_not_removed_by_the_old_guard() {
        let tools = HostedTools::default();
        let attached = |tools: &HostedTools| tools.0.lock().unwrap().threads.contains_key("t");
        let first = tools.attach("t", Hosted::default());
        let second = tools.attach("t", Hosted::default());
        drop(second);
        assert!(!attached(&tools));
        let third = tools.attach("t", Hosted::default());
        drop(first);
        assert!(attached(&tools), "an old guard removed a newer attachment");
        drop(third);
        assert!(!attached(&tools));
    }
}
