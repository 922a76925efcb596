//! git_status and git_diff, run in the workspace.

use super::{ToolError, Workspace};
use serde_json::Value;
use tokio::process::Command;

const MAX_OUTPUT: usize = 64 * 1024;

pub async fn status(workspace: &Workspace) -> Result<String, ToolError> {
    git(workspace, &["status", "--short", "--branch"]).await
}

pub async fn diff(workspace: &Workspace, args: &Value) -> Result<String, ToolError> {
    let mut argv = vec!["diff".to_string()];
    if args["staged"].as_bool() == Some(true) {
        argv.push("--staged".into());
    }
    if let Some(path) = args["path"].as_str() {
        let path = workspace.existing(path)?;
        argv.push("--".into());
        argv.push(path.display().to_string());
    }
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    let out = git(workspace, &argv).await?;
    Ok(if out.trim().is_empty() {
        "no changes".into()
    } else {
        out
    })
}

async fn git(workspace: &Workspace, args: &[&str]) -> Result<String, ToolError> {
    let output = Command::new("git")
        .arg("-C")
        .arg(workspace.root())
        .args(args)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .kill_on_drop(true)
        .output()
        .await
        .map_err(|e| ToolError(format!("git is not available: {e}")))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(ToolError(format!(
            "git {}: {}",
            args.join(" "),
            stderr.trim()
        )));
    }
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    if text.len() > MAX_OUTPUT {
        let mut cut = MAX_OUTPUT;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str("\n… output truncated");
    }
    Ok(text)
}
