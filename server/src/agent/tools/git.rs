//! git_status and git_diff, run in the workspace through `child::git`
//! (which keeps the repository from starting programs).

use super::{ToolError, Workspace};
use crate::child::git::{self, Read};
use serde_json::Value;

const MAX_OUTPUT: usize = 64 * 1024;

pub async fn status(workspace: &Workspace) -> Result<String, ToolError> {
    run(workspace, Read::Status, &["--short", "--branch"]).await
}

pub async fn diff(workspace: &Workspace, args: &Value) -> Result<String, ToolError> {
    let mut argv = Vec::new();
    if args["staged"].as_bool() == Some(true) {
        argv.push("--staged".into());
    }
    if let Some(path) = args["path"].as_str() {
        let path = workspace.existing(path)?;
        argv.push("--".into());
        argv.push(path.display().to_string());
    }
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    let out = run(workspace, Read::Diff, &argv).await?;
    Ok(if out.trim().is_empty() {
        "no changes".into()
    } else {
        out
    })
}

async fn run(workspace: &Workspace, read: Read, args: &[&str]) -> Result<String, ToolError> {
    let output = git::output(workspace.root(), read, args)
        .await
        .map_err(|e| ToolError(format!("git could not run: {e}")))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let command = std::iter::once(read.name()).chain(args.iter().copied());
        return Err(ToolError(format!(
            "git {}: {}",
            command.collect::<Vec<_>>().join(" "),
            stderr.trim()
        )));
    }
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    crate::text::clip(&mut text, MAX_OUTPUT, "\n… output truncated");
    Ok(text)
}
