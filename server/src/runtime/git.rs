//! Branch, head and dirtiness of a workspace, read from `git status` at
//! request time (through `child::git`, so the repository cannot start
//! programs). One lookup per workspace, cached briefly so a page of
//! threads sharing a repository costs one.

use crate::child::git::{self, Read};
use std::{
    collections::HashMap,
    path::Path,
    sync::Mutex,
    time::{Duration, Instant},
};

const TTL: Duration = Duration::from_secs(2);

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GitFacts {
    pub branch: Option<String>,
    pub head: Option<String>,
    pub dirty: Option<bool>,
}

#[derive(Default)]
pub struct GitCache {
    entries: Mutex<HashMap<String, (Instant, GitFacts)>>,
}

impl GitCache {
    pub async fn facts(&self, workspace: &str) -> GitFacts {
        if let Some(hit) = self.cached(workspace) {
            return hit;
        }
        let facts = read(workspace).await;
        if let Ok(mut entries) = self.entries.lock() {
            if entries.len() > 1024 {
                entries.clear();
            }
            entries.insert(workspace.to_string(), (Instant::now(), facts.clone()));
        }
        facts
    }

    fn cached(&self, workspace: &str) -> Option<GitFacts> {
        let entries = self.entries.lock().ok()?;
        let (at, facts) = entries.get(workspace)?;
        (at.elapsed() < TTL).then(|| facts.clone())
    }
}

/// Null facts outside a repository or when git is unavailable.
async fn read(workspace: &str) -> GitFacts {
    let args = ["--porcelain=v2", "--branch", "--untracked-files=normal"];
    let output = git::output(Path::new(workspace), Read::Status, &args).await;
    match output {
        Ok(output) if output.status.success() => {
            parse_status(&String::from_utf8_lossy(&output.stdout))
        }
        _ => GitFacts::default(),
    }
}

fn parse_status(text: &str) -> GitFacts {
    let mut facts = GitFacts {
        dirty: Some(false),
        ..GitFacts::default()
    };
    for line in text.lines() {
        if let Some(oid) = line.strip_prefix("# branch.oid ") {
            facts.head = (oid != "(initial)").then(|| oid.chars().take(7).collect());
        } else if let Some(head) = line.strip_prefix("# branch.head ") {
            facts.branch = (head != "(detached)").then(|| head.to_string());
        } else if !line.starts_with('#') && !line.is_empty() {
            facts.dirty = Some(true);
        }
    }
    facts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_porcelain_v2() {
        let clean = "# branch.oid 0123456789abcdef\n# branch.head main\n";
        assert_eq!(
            parse_status(clean),
            GitFacts {
                branch: Some("main".into()),
                head: Some("0123456".into()),
                dirty: Some(false)
            }
        );
        let dirty = "# branch.oid (initial)\n# branch.head (detached)\n? new.txt\n";
        assert_eq!(
            parse_status(dirty),
            GitFacts {
                branch: None,
                head: None,
                dirty: Some(true)
            }
        );
    }
}
