//! Git worktrees for fleet workers, made and read through the same
//! disarmed git as every read (`git.rs`): no hooks, no filters from the
//! repository's config, no signing, editor, submodules or maintenance.
//!
//! A worktree is made in two steps, because `worktree add` checks out with
//! the filters of config only the new worktree sees (`includeIf
//! "onbranch:…"`): add it without a checkout, then `reset --hard` inside it
//! with its own filters emptied. Every later command pins `--git-dir`, as
//! the worker can rewrite the worktree's `.git` file. LFS content is left
//! as pointers: its smudge filter is a program too.

use super::git::{command, filters_in, repository_filters, CONFIG_LISTING};
use crate::workspace::confine::Workspace;
use protocol::{DiffStat, DiffStatFile};
use std::{
    io,
    path::{Path, PathBuf},
};
use tokio::process::Command;

/// The longest one git command of a fleet may take.
const GIT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);

/// The repository a workspace is in, as a fleet needs it.
#[derive(Clone, Debug)]
pub struct Repository {
    /// The top of the workspace's work tree.
    pub top: PathBuf,
    /// The workspace relative to `top` (empty at the top).
    pub prefix: PathBuf,
    /// The git directory shared by all its worktrees.
    pub common_git_dir: PathBuf,
    /// The HEAD commit: what every worktree starts from.
    pub head: String,
}

/// A worktree made for a worker.
#[derive(Clone, Debug)]
pub struct Worktree {
    pub path: PathBuf,
    /// Its own git directory (inside the common one), pinned from now on.
    pub git_dir: PathBuf,
}

/// Reads the repository `workspace` is in, refusing what a worktree
/// cannot be made from: no repository, a bare one, a partial clone (its
/// checkout would fetch) or one without a commit.
pub async fn inspect(workspace: &Path) -> Result<Repository, String> {
    let bare = rev_parse(workspace, &["--is-bare-repository"])
        .await
        .map_err(|_| format!("{} is not in a git repository", workspace.display()))?;
    if bare == "true" {
        return Err("the repository is bare: it has no work tree to branch".into());
    }
    let top = rev_parse(workspace, &["--show-toplevel"]).await?;
    let prefix = rev_parse(workspace, &["--show-prefix"]).await?;
    let common = rev_parse(workspace, &["--path-format=absolute", "--git-common-dir"]).await?;
    let partial = git(
        workspace,
        &[],
        &["config", "--get", "extensions.partialClone"],
    )
    .await;
    let promisor = git(
        workspace,
        &[],
        &[
            "config",
            "--type=bool",
            "--get-regexp",
            r"^remote\..*\.promisor$",
        ],
    )
    .await;
    if partial.is_ok() || promisor.is_ok_and(|out| out.contains("true")) {
        return Err("the repository is a partial clone: its worktrees would fetch".into());
    }
    let head = rev_parse(workspace, &["--verify", "-q", "HEAD^{commit}"])
        .await
        .map_err(|_| "the repository has no commit yet: commit something first".to_string())?;
    Ok(Repository {
        top: PathBuf::from(top),
        prefix: PathBuf::from(prefix),
        common_git_dir: PathBuf::from(common),
        head,
    })
}

/// Adds a worktree at `path` on a new `branch` from `base`. On failure
/// nothing is left: neither the worktree nor the branch.
pub async fn add(
    repository: &Repository,
    path: &Path,
    branch: &str,
    base: &str,
) -> Result<Worktree, String> {
    let filters = repository_filters(&repository.top)
        .await
        .map_err(|e| e.to_string())?;
    let path_arg = path.to_string_lossy();
    git(
        &repository.top,
        &filters,
        &[
            "worktree",
            "add",
            "-q",
            "--no-checkout",
            "--no-track",
            "-b",
            branch,
            &path_arg,
            base,
        ],
    )
    .await?;
    let checked_out = async {
        let git_dir = PathBuf::from(rev_parse(path, &["--absolute-git-dir"]).await?);
        let worktree = Worktree {
            path: path.to_path_buf(),
            git_dir,
        };
        pinned(
            &worktree,
            &["reset", "-q", "--hard", "--no-recurse-submodules"],
        )
        .await?;
        Ok::<_, String>(worktree)
    };
    match checked_out.await {
        Ok(worktree) => Ok(worktree),
        Err(error) => {
            discard(&repository.top, path, branch).await;
            Err(error)
        }
    }
}

/// A worktree for a workspace: added at `path` on a new `branch` from the
/// repository's HEAD, and the workspace's own subdirectory inside it (made
/// when nothing committed is in it), confined to the worktree like any
/// workspace path (HEAD may hold a symlink where the checkout has a
/// directory). On failure nothing is left.
pub async fn add_for_workspace(
    repository: &Repository,
    path: &Path,
    branch: &str,
) -> Result<(Worktree, PathBuf), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot make {}: {e}", parent.display()))?;
    }
    let made = add(repository, path, branch, &repository.head).await?;
    match workspace_in(&made, &repository.prefix) {
        Ok(inside) => Ok((made, inside)),
        Err(error) => {
            discard(&repository.top, &made.path, branch).await;
            Err(error)
        }
    }
}

fn workspace_in(made: &Worktree, prefix: &Path) -> Result<PathBuf, String> {
    let tree = Workspace::new(&made.path, false).map_err(|e| e.0)?;
    let Some(prefix) = prefix.to_str().filter(|p| !p.is_empty()) else {
        return Ok(tree.root().to_path_buf());
    };
    // The directories above a name in it are made through the confined walk.
    let marker = tree
        .writable(&format!("{prefix}/.codewhale"))
        .map_err(|e| e.0)?;
    marker
        .create_parents(&mut Vec::new())
        .map_err(|e| format!("cannot make {prefix} in the worktree: {e}"))?;
    Ok(tree
        .existing(prefix)
        .map_err(|e| e.0)?
        .as_path()
        .to_path_buf())
}

/// Best effort: removes a worktree that is not wanted, and its branch.
pub async fn discard(repository_top: &Path, path: &Path, branch: &str) {
    if let Err(error) = remove(repository_top, path).await {
        tracing::warn!(%error, "removing an unwanted worktree failed");
    }
    if let Err(error) = git(repository_top, &[], &["branch", "-D", "-q", branch]).await {
        tracing::warn!(%error, "deleting an unwanted branch failed");
    }
}

/// Commits everything in the worktree onto `branch` (hooks and signing
/// off, codewhale's identity), whatever the worktree's HEAD points at now:
/// the commit is built from the staged tree and the branch moved with a
/// compare-and-swap. `None` when the branch already holds that tree.
pub async fn commit_all(
    worktree: &Worktree,
    branch: &str,
    message: &str,
) -> Result<Option<String>, String> {
    let branch_ref = format!("refs/heads/{branch}");
    pinned(worktree, &["add", "-A"]).await?;
    let tree = pinned(worktree, &["write-tree"]).await?.trim().to_string();
    let parent = pinned(
        worktree,
        &["rev-parse", "--verify", &format!("{branch_ref}^{{commit}}")],
    )
    .await?
    .trim()
    .to_string();
    let parent_tree = pinned(worktree, &["rev-parse", &format!("{parent}^{{tree}}")]).await?;
    if parent_tree.trim() == tree {
        return Ok(None);
    }
    let commit = pinned(
        worktree,
        &[
            "commit-tree",
            "--no-gpg-sign",
            &tree,
            "-p",
            &parent,
            "-m",
            message,
        ],
    )
    .await?
    .trim()
    .to_string();
    pinned(worktree, &["update-ref", &branch_ref, &commit, &parent]).await?;
    Ok(Some(commit))
}

/// What `branch` changed against `base`, per file.
pub async fn diff_stat(worktree: &Worktree, base: &str, branch: &str) -> Result<DiffStat, String> {
    let branch_ref = format!("refs/heads/{branch}");
    let listing = pinned(
        worktree,
        &[
            "diff-tree",
            "-r",
            "-z",
            "--no-textconv",
            "--no-ext-diff",
            "--numstat",
            "--no-renames",
            base,
            &branch_ref,
        ],
    )
    .await?;
    Ok(parse_numstat(&listing))
}

/// Removes the worktree (its files and git's record of it); the branch
/// stays. A worktree already gone is fine.
pub async fn remove(repository_top: &Path, path: &Path) -> Result<(), String> {
    let path_arg = path.to_string_lossy();
    let removed = git(
        repository_top,
        &[],
        &["worktree", "remove", "--force", "--force", &path_arg],
    )
    .await;
    if removed.is_err() && path.exists() {
        tokio::fs::remove_dir_all(path)
            .await
            .map_err(|e| format!("removing {}: {e}", path.display()))?;
    }
    // A repository that moved or went away has nothing to prune.
    if let Err(error) = git(repository_top, &[], &["worktree", "prune"]).await {
        tracing::warn!(%error, "pruning worktrees failed");
    }
    Ok(())
}

/// `git rev-parse <args>`'s single line.
async fn rev_parse(dir: &Path, args: &[&str]) -> Result<String, String> {
    let mut argv = vec!["rev-parse"];
    argv.extend_from_slice(args);
    Ok(git(dir, &[], &argv)
        .await?
        .trim_end_matches('\n')
        .to_string())
}

/// Git in the worktree with its git directory pinned and its own filters
/// (recomputed now: the worker may have changed its config) emptied.
async fn pinned(worktree: &Worktree, args: &[&str]) -> Result<String, String> {
    let listing = pinned_with(worktree, &[], &CONFIG_LISTING).await?;
    let out = pinned_with(worktree, &filters_in(&listing), args).await?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

async fn pinned_with(
    worktree: &Worktree,
    filters: &[Vec<u8>],
    args: &[&str],
) -> Result<Vec<u8>, String> {
    let mut command = armless(&worktree.path, filters);
    command
        .arg("--git-dir")
        .arg(&worktree.git_dir)
        .arg("--work-tree")
        .arg(&worktree.path)
        .args(args);
    finish(command, args).await
}

async fn git(dir: &Path, filters: &[Vec<u8>], args: &[&str]) -> Result<String, String> {
    let mut command = armless(dir, filters);
    command.args(args);
    let out = finish(command, args).await?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// The disarmed command, with LFS's smudge filter off too and codewhale's
/// identity for commits.
fn armless(dir: &Path, filters: &[Vec<u8>]) -> Command {
    let mut filters = filters.to_vec();
    filters.push(b"lfs".to_vec());
    let mut command = command(dir, &filters);
    command
        .env("GIT_LFS_SKIP_SMUDGE", "1")
        .env("GIT_AUTHOR_NAME", "codewhale")
        .env("GIT_AUTHOR_EMAIL", "codewhale@localhost")
        .env("GIT_COMMITTER_NAME", "codewhale")
        .env("GIT_COMMITTER_EMAIL", "codewhale@localhost");
    command
}

async fn finish(mut command: Command, args: &[&str]) -> Result<Vec<u8>, String> {
    // Bounded: a worker can plant a FIFO where git will read; git is
    // killed when the wait is dropped (`kill_on_drop`).
    let out = tokio::time::timeout(GIT_TIMEOUT, command.output())
        .await
        .map_err(|_| format!("git took over {} s", GIT_TIMEOUT.as_secs()))?
        .map_err(|e: io::Error| format!("cannot run git: {e}"))?;
    if out.status.success() {
        return Ok(out.stdout);
    }
    let what = args.first().copied().unwrap_or("git");
    Err(format!(
        "git {what} failed: {}",
        String::from_utf8_lossy(&out.stderr).trim()
    ))
}

/// `diff-tree -z --numstat` output: `added\tdeleted\tpath\0` per file,
/// `-\t-\t` for a binary one.
fn parse_numstat(listing: &str) -> DiffStat {
    let files: Vec<DiffStatFile> = listing
        .split('\0')
        .filter_map(|entry| {
            let mut parts = entry.splitn(3, '\t');
            let (added, deleted, path) = (parts.next()?, parts.next()?, parts.next()?);
            let binary = added == "-";
            Some(DiffStatFile {
                path: path.to_string(),
                insertions: added.parse().unwrap_or(0),
                deletions: deleted.parse().unwrap_or(0),
                binary,
            })
        })
        .collect();
    DiffStat {
        files_changed: files.len() as u32,
        insertions: files.iter().map(|f| f.insertions).sum(),
        deletions: files.iter().map(|f| f.deletions).sum(),
        files,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numstat_counts_lines_and_binaries() {
        let stat = parse_numstat("3\t1\tsrc/a.rs\0-\t-\timg.png\x000\t2\tsp ace\t.txt\0");
        assert_eq!(stat.files_changed, 3);
        assert_eq!((stat.insertions, stat.deletions), (3, 3));
        assert!(stat.files[1].binary);
        assert_eq!(stat.files[2].path, "sp ace\t.txt");
        assert_eq!(parse_numstat("").files_changed, 0);
    }
}
