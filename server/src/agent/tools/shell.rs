//! exec_shell: `sh -c` in the workspace, in its own process group, with a
//! timeout and an output cap; it gets the scrubbed environment (no runtime
//! token, provider keys or other credentials: `child::env`), and the whole
//! group is killed on timeout or when the turn is interrupted (the future
//! is dropped).

use super::{str_arg, ToolError, ToolOutput, Workspace};
use serde_json::{json, Value};
use std::{process::Stdio, time::Duration};
use tokio::{io::AsyncReadExt, process::Command};

const DEFAULT_TIMEOUT_SECS: u64 = 120;
const MAX_TIMEOUT_SECS: u64 = 600;
pub(super) const MAX_OUTPUT: usize = 64 * 1024;

/// Kills the process group when dropped (timeout, interrupt, or done).
struct Group(Option<i32>);

impl Drop for Group {
    fn drop(&mut self) {
        if let Some(pgid) = self.0 {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(pgid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}

/// The call's timeout, within bounds.
pub(super) fn timeout(args: &Value) -> Duration {
    Duration::from_secs(
        args["timeout_seconds"]
            .as_u64()
            .unwrap_or(DEFAULT_TIMEOUT_SECS)
            .clamp(1, MAX_TIMEOUT_SECS),
    )
}

/// What the model reads of a finished command.
pub(super) fn report(output: &str, exit: Option<i32>) -> String {
    let exit = exit
        .map(|c| c.to_string())
        .unwrap_or_else(|| "killed".into());
    format!("{output}\n[exit code {exit}]")
}

pub(super) fn timed_out(command: &str, timeout: Duration) -> ToolError {
    ToolError(format!(
        "`{command}` timed out after {} s and was killed",
        timeout.as_secs()
    ))
}

pub async fn exec_shell(workspace: &Workspace, args: &Value) -> Result<ToolOutput, ToolError> {
    let command = str_arg(args, "command")?;
    let timeout = timeout(args);
    let mut process = Command::new("sh");
    crate::child::env::apply(process.as_std_mut());
    process
        .arg("-c")
        .arg(command)
        .current_dir(workspace.root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = process
        .spawn()
        .map_err(|e| ToolError(format!("cannot run sh: {e}")))?;
    let group = Group(child.id().map(|id| id as i32));
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let run = async {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let read_out = async {
            if let Some(s) = stdout.as_mut() {
                let _ = s.take(MAX_OUTPUT as u64 * 2).read_to_end(&mut out).await;
            }
        };
        let read_err = async {
            if let Some(s) = stderr.as_mut() {
                let _ = s.take(MAX_OUTPUT as u64 * 2).read_to_end(&mut err).await;
            }
        };
        tokio::join!(read_out, read_err);
        let status = child.wait().await;
        (status, out, err)
    };
    let (status, out, err) = match tokio::time::timeout(timeout, run).await {
        Ok(result) => result,
        Err(_) => {
            drop(group);
            return Err(timed_out(command, timeout));
        }
    };
    drop(group);
    let code = status.ok().and_then(|s| s.code());
    let mut text = String::new();
    text.push_str(&cap(&out));
    if !err.is_empty() {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&cap(&err));
    }
    Ok(ToolOutput {
        text: report(&text, code),
        metadata: json!({ "command": command, "exit_code": code }),
    })
}

fn cap(bytes: &[u8]) -> String {
    let mut text = String::from_utf8_lossy(bytes).into_owned();
    crate::text::clip(&mut text, MAX_OUTPUT, "\n… output truncated");
    text
}
