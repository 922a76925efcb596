//! grep_files and file_search: walks that honour .gitignore (the `ignore`
//! crate, as ripgrep does).

use super::{str_arg, ToolError, Workspace};
use globset::Glob;
use regex::Regex;
use serde_json::Value;
use std::io::{BufRead, BufReader};

const MAX_MATCHES: usize = 200;
const MAX_FILE_BYTES: u64 = 2 * 1024 * 1024;

pub fn grep_files(workspace: &Workspace, args: &Value) -> Result<String, ToolError> {
    let pattern = Regex::new(str_arg(args, "pattern")?)
        .map_err(|e| ToolError(format!("invalid pattern: {e}")))?;
    let root = workspace.existing(args["path"].as_str().unwrap_or("."))?;
    let filter = match args["glob"].as_str() {
        Some(glob) => Some(
            Glob::new(glob)
                .map_err(|e| ToolError(format!("invalid glob: {e}")))?
                .compile_matcher(),
        ),
        None => None,
    };
    let mut hits = Vec::new();
    for entry in ignore::WalkBuilder::new(&root).build().flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let shown = workspace.display(entry.path());
        if filter.as_ref().is_some_and(|f| !f.is_match(&shown)) {
            continue;
        }
        if entry.metadata().map(|m| m.len()).unwrap_or(0) > MAX_FILE_BYTES {
            continue;
        }
        let Ok(file) = std::fs::File::open(entry.path()) else {
            continue;
        };
        for (number, line) in BufReader::new(file).lines().enumerate() {
            let Ok(line) = line else { break }; // binary or not UTF-8: skip the rest
            if pattern.is_match(&line) {
                hits.push(format!("{shown}:{}: {}", number + 1, line.trim_end()));
                if hits.len() >= MAX_MATCHES {
                    hits.push(format!("… stopped at {MAX_MATCHES} matches"));
                    return Ok(hits.join("\n"));
                }
            }
        }
    }
    Ok(if hits.is_empty() {
        "no matches".into()
    } else {
        hits.join("\n")
    })
}

pub fn file_search(workspace: &Workspace, args: &Value) -> Result<String, ToolError> {
    let glob = str_arg(args, "pattern")?;
    let matcher = Glob::new(glob)
        .map_err(|e| ToolError(format!("invalid glob: {e}")))?
        .compile_matcher();
    let mut found = Vec::new();
    for entry in ignore::WalkBuilder::new(workspace.root()).build().flatten() {
        let shown = workspace.display(entry.path());
        if entry.file_type().is_some_and(|t| t.is_file()) && matcher.is_match(&shown) {
            found.push(shown);
            if found.len() >= MAX_MATCHES {
                found.push(format!("… stopped at {MAX_MATCHES} files"));
                break;
            }
        }
    }
    Ok(if found.is_empty() {
        format!("no files match {glob}")
    } else {
        found.join("\n")
    })
}
