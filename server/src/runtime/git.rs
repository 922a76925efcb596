//! Branch, head, dirtiness, upstream and change counts of a workspace,
//! read from `git status` at request time (through `child::git`, so the
//! repository cannot start programs). One lookup per workspace, cached
//! briefly so a page of threads sharing a repository costs one; the
//! status route reads afresh (`GitCache::fresh`).

use crate::child::git::{self, Read};
use protocol::StatusCounts;
use std::{
    collections::HashMap,
    path::Path,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

const TTL: Duration = Duration::from_secs(2);

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GitFacts {
    pub branch: Option<String>,
    /// Abbreviated to 7 characters (the thread list's column).
    pub head: Option<String>,
    pub dirty: Option<bool>,
    /// False outside a repository (or when git cannot run); then every
    /// other field is empty.
    pub is_git: bool,
    /// The full commit id of HEAD.
    pub oid: Option<String>,
    pub upstream: Option<String>,
    /// Commits ahead of and behind the upstream.
    pub ahead_behind: Option<(u32, u32)>,
    pub counts: StatusCounts,
}

#[derive(Default)]
pub struct GitCache {
    entries: Mutex<HashMap<String, (Instant, GitFacts)>>,
    /// One read at a time per workspace: when an entry expires under load,
    /// the requests that miss wait for one `git status`, not one each.
    reading: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

impl GitCache {
    /// Facts at most `TTL` old, except while another request reads them
    /// again: then the previous ones. A `git status` is a process, ~10 ms
    /// or more on a busy machine; every request of a listing waiting for it
    /// every `TTL` made the listing's p99 under load.
    pub async fn facts(&self, workspace: &str) -> GitFacts {
        let stale = match self.lookup(workspace) {
            Some((facts, true)) => return facts,
            Some((facts, false)) => Some(facts),
            None => None,
        };
        let gate = self.gate(workspace);
        let _reading = match (gate.try_lock(), stale) {
            (Ok(reading), _) => reading,
            (Err(_), Some(stale)) => return stale,
            (Err(_), None) => gate.lock().await,
        };
        if let Some(hit) = self.cached(workspace) {
            return hit; // read by whoever held the gate
        }
        self.fresh(workspace).await
    }

    fn gate(&self, workspace: &str) -> Arc<tokio::sync::Mutex<()>> {
        let mut reading = self.reading.lock().unwrap_or_else(|p| p.into_inner());
        if reading.len() > 1024 {
            reading.retain(|_, gate| Arc::strong_count(gate) > 1);
        }
        reading.entry(workspace.to_string()).or_default().clone()
    }

    /// Read now, whatever is cached (and cached for the next `facts`).
    pub async fn fresh(&self, workspace: &str) -> GitFacts {
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
        self.lookup(workspace)
            .and_then(|(facts, fresh)| fresh.then_some(facts))
    }

    /// The last facts read, and whether they are younger than `TTL`.
    fn lookup(&self, workspace: &str) -> Option<(GitFacts, bool)> {
        let entries = self.entries.lock().ok()?;
        let (at, facts) = entries.get(workspace)?;
        Some((facts.clone(), at.elapsed() < TTL))
    }
}

/// Longest a `git status` may take (a hung network mount, a huge work
/// tree): past it the child is killed (`kill_on_drop`) and the facts are
/// null, so no request, and no refresh gate, waits on git for ever.
const STATUS_TIMEOUT: Duration = Duration::from_secs(5);

/// Null facts outside a repository, when git is unavailable, or slower
/// than `STATUS_TIMEOUT`.
async fn read(workspace: &str) -> GitFacts {
    let args = ["--porcelain=v2", "--branch", "--untracked-files=normal"];
    let output = git::output(Path::new(workspace), Read::Status, &args);
    match tokio::time::timeout(STATUS_TIMEOUT, output).await {
        Ok(Ok(output)) if output.status.success() => {
            parse_status(&String::from_utf8_lossy(&output.stdout))
        }
        _ => GitFacts::default(),
    }
}

fn parse_status(text: &str) -> GitFacts {
    let mut facts = GitFacts {
        dirty: Some(false),
        is_git: true,
        ..GitFacts::default()
    };
    for line in text.lines() {
        if let Some(oid) = line.strip_prefix("# branch.oid ") {
            facts.oid = (oid != "(initial)").then(|| oid.to_string());
            facts.head = facts.oid.as_ref().map(|o| o.chars().take(7).collect());
        } else if let Some(head) = line.strip_prefix("# branch.head ") {
            facts.branch = (head != "(detached)").then(|| head.to_string());
        } else if let Some(upstream) = line.strip_prefix("# branch.upstream ") {
            facts.upstream = Some(upstream.to_string());
        } else if let Some(ab) = line.strip_prefix("# branch.ab ") {
            facts.ahead_behind = ahead_behind(ab);
        } else if !line.starts_with('#') && !line.is_empty() {
            facts.dirty = Some(true);
            count(&mut facts.counts, line);
        }
    }
    facts
}

/// `+1 -2` → (1, 2).
fn ahead_behind(text: &str) -> Option<(u32, u32)> {
    let (ahead, behind) = text.split_once(' ')?;
    Some((
        ahead.strip_prefix('+')?.parse().ok()?,
        behind.strip_prefix('-')?.parse().ok()?,
    ))
}

/// One entry line: `1 XY …` / `2 XY …` (changed, renamed), `u XY …`
/// (unmerged), `? path` (untracked). X is the index, Y the work tree.
fn count(counts: &mut StatusCounts, line: &str) {
    let mut fields = line.split(' ');
    let kind = fields.next();
    let xy = fields.next().unwrap_or("..").as_bytes();
    match kind {
        Some("1" | "2") => {
            counts.staged += u32::from(xy.first().is_some_and(|x| *x != b'.'));
            counts.unstaged += u32::from(xy.get(1).is_some_and(|y| *y != b'.'));
        }
        Some("u") => counts.conflicted += 1,
        Some("?") => counts.untracked += 1,
        _ => {}
    }
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
                dirty: Some(false),
                is_git: true,
                oid: Some("0123456789abcdef".into()),
                ..GitFacts::default()
            }
        );
        let dirty = "# branch.oid (initial)\n# branch.head (detached)\n? new.txt\n";
        let facts = parse_status(dirty);
        assert_eq!((facts.branch, facts.head, facts.oid), (None, None, None));
        assert_eq!(facts.dirty, Some(true));
        assert_eq!(facts.counts.untracked, 1);
    }

    #[test]
    fn counts_upstream_and_ahead_behind() {
        let text = "# branch.oid 0123456789abcdef\n# branch.head main\n\
                    # branch.upstream origin/main\n# branch.ab +2 -1\n\
                    1 M. N... 100644 100644 100644 a b staged.txt\n\
                    1 .M N... 100644 100644 100644 a b changed.txt\n\
                    1 MM N... 100644 100644 100644 a b both.txt\n\
                    2 R. N... 100644 100644 100644 a b R100 new.txt\told.txt\n\
                    u UU N... 100644 100644 100644 100644 a b c conflict.txt\n\
                    ? new/\n? other.txt\n";
        let facts = parse_status(text);
        assert_eq!(facts.upstream.as_deref(), Some("origin/main"));
        assert_eq!(facts.ahead_behind, Some((2, 1)));
        assert_eq!(
            facts.counts,
            StatusCounts {
                staged: 3,
                unstaged: 2,
                untracked: 2,
                conflicted: 1
            }
        );
    }

    /// Facts from an earlier read, `age` old.
    fn remembered(cache: &GitCache, workspace: &str, age: Duration) -> GitFacts {
        let facts = GitFacts {
            branch: Some("remembered".into()),
            ..Default::default()
        };
        let at = Instant::now() - age;
        let mut entries = cache.entries.lock().unwrap();
        entries.insert(workspace.to_string(), (at, facts.clone()));
        facts
    }

    #[tokio::test]
    async fn expired_facts_answer_while_another_request_reads_them_again() {
        let dir = tempfile::tempdir().unwrap();
        let workspace = dir.path().to_str().unwrap();
        let cache = GitCache::default();
        let stale = remembered(&cache, workspace, TTL * 2);
        let gate = cache.gate(workspace);
        let reading = gate.lock().await;
        // Someone is reading: the expired facts, at once.
        assert_eq!(cache.facts(workspace).await, stale);
        drop(reading);
        // Nobody is: this request reads (not a repository: no facts).
        assert_eq!(cache.facts(workspace).await, GitFacts::default());
        // Fresh facts are answered as they are.
        let fresh = remembered(&cache, workspace, Duration::ZERO);
        assert_eq!(cache.facts(workspace).await, fresh);
    }

    #[tokio::test]
    async fn without_earlier_facts_a_request_waits_for_the_read() {
        let dir = tempfile::tempdir().unwrap();
        let workspace = dir.path().to_str().unwrap();
        let cache = GitCache::default();
        let gate = cache.gate(workspace);
        let reading = gate.lock().await;
        let waiting = tokio::time::timeout(Duration::from_millis(50), cache.facts(workspace));
        assert!(
            waiting.await.is_err(),
            "answered without facts to answer with"
        );
        // Once the reader has recorded them, they are answered.
        let read = remembered(&cache, workspace, Duration::ZERO);
        drop(reading);
        assert_eq!(cache.facts(workspace).await, read);
    }
}
