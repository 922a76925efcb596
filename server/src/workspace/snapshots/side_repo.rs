//! codewhale's side repository for one workspace: a bare git repository
//! under `$CODEWHALE_HOME/snapshots/`, whose work tree is the workspace.
//! It has its own index, so the user's `.git` (their index, stash, refs and
//! hooks) is never touched, and a directory that is not a repository can
//! be snapshotted the same way. `git add -A` against its own index only
//! rehashes files whose stat changed, which is what keeps a snapshot of a
//! large tree fast after the first.
//!
//! Every process comes from `child::git::side` (the disarmed command). The
//! side repository's `info/attributes` outranks the work tree's
//! `.gitattributes`, so no filter, eol or encoding conversion touches what
//! is stored: a snapshot holds the bytes that were on disk.

use crate::child::git;
use std::collections::HashMap;
use std::ffi::OsString;
use std::io;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Config of every side repository (the user's global config still
/// applies below it, so anything it could change is pinned here).
const CONFIG: &[(&str, &str)] = &[
    ("core.autocrlf", "false"),
    ("core.safecrlf", "false"),
    ("core.fileMode", "true"),
    ("core.symlinks", "true"),
    ("core.ignoreCase", "false"),
    ("core.untrackedCache", "true"),
    ("core.preloadIndex", "true"),
    ("core.bigFileThreshold", "1m"),
    ("gc.auto", "0"),
    ("advice.addEmbeddedRepo", "false"),
    ("advice.addIgnoredFile", "false"),
];

/// Stored bytes exactly as on disk, whatever the work tree's attributes say.
const ATTRIBUTES: &str = "* -text -eol -filter -ident -working-tree-encoding -diff -merge\n";

/// One entry of a tree: git's mode and object id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub mode: u32,
    pub oid: String,
}

impl Entry {
    pub fn is_symlink(&self) -> bool {
        self.mode == 0o120000
    }

    pub fn is_executable(&self) -> bool {
        self.mode == 0o100755
    }

    /// A nested repository (gitlink): recorded by commit id, never restored.
    pub fn is_gitlink(&self) -> bool {
        self.mode == 0o160000
    }
}

/// A path that differs between two trees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// Relative to the work tree.
    pub path: PathBuf,
    pub old: Option<Entry>,
    pub new: Option<Entry>,
}

pub struct SideRepo {
    git_dir: PathBuf,
    work_tree: PathBuf,
}

impl SideRepo {
    /// The side repository for `work_tree` under `dir`, created on first use.
    pub async fn open(dir: &Path, work_tree: &Path) -> io::Result<Self> {
        let repo = Self {
            git_dir: dir.join(format!("{}.git", key(work_tree))),
            work_tree: work_tree.to_path_buf(),
        };
        if !repo.git_dir.join("HEAD").exists() {
            repo.init(dir).await?;
        }
        Ok(repo)
    }

    pub fn git_dir(&self) -> &Path {
        &self.git_dir
    }

    async fn init(&self, dir: &Path) -> io::Result<()> {
        std::fs::create_dir_all(dir)?;
        // Made aside and renamed in, so a half-made repository is never used.
        let staging = dir.join(format!(".init-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&staging);
        let mut init = git::side(&staging, None);
        init.args(["init", "--quiet", "--bare"]);
        run(init).await?;
        let staged = Self {
            git_dir: staging.clone(),
            work_tree: self.work_tree.clone(),
        };
        for (key, value) in CONFIG {
            staged.git(&["config", key, value]).await?;
        }
        staged.git(&["config", "core.bare", "false"]).await?;
        std::fs::create_dir_all(staging.join("info"))?;
        std::fs::write(staging.join("info/attributes"), ATTRIBUTES)?;
        match std::fs::rename(&staging, &self.git_dir) {
            Ok(()) => Ok(()),
            // Another process made it first: use theirs.
            Err(_) if self.git_dir.join("HEAD").exists() => {
                let _ = std::fs::remove_dir_all(&staging);
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// Records the work tree as it is now (what `.gitignore` leaves in)
    /// and returns its tree id. Unreadable files are skipped, not fatal.
    pub async fn capture(&self) -> io::Result<String> {
        self.git(&["add", "--all", "--ignore-errors", "--", "."])
            .await
            .or_else(|e| match e.kind() {
                // --ignore-errors still exits 1 after skipping a file.
                io::ErrorKind::Other if e.to_string().contains("error: open(") => Ok(Vec::new()),
                _ => Err(e),
            })?;
        Ok(line(self.git(&["write-tree"]).await?))
    }

    /// A commit of `tree` (after `parent`), kept alive by a ref named
    /// after the snapshot.
    pub async fn commit(
        &self,
        tree: &str,
        parent: Option<&str>,
        message: &str,
        name: &str,
    ) -> io::Result<String> {
        let mut args = vec!["commit-tree", tree, "-m", message];
        if let Some(parent) = parent {
            args.extend(["-p", parent]);
        }
        let commit = line(self.git(&args).await?);
        let reference = format!("refs/codewhale/{name}");
        self.git(&["update-ref", &reference, &commit]).await?;
        Ok(commit)
    }

    /// The paths that differ from tree `from` to tree `to`, every file
    /// listed (no rename detection: a rename is a delete and an add).
    pub async fn changes(&self, from: &str, to: &str) -> io::Result<Vec<Change>> {
        let out = self
            .git(&[
                "diff-tree",
                "-r",
                "-z",
                "--no-abbrev",
                "--no-renames",
                from,
                to,
            ])
            .await?;
        parse_raw(&out)
    }

    /// The contents of the given blobs.
    pub async fn blobs(&self, oids: &[&str]) -> io::Result<HashMap<String, Vec<u8>>> {
        if oids.is_empty() {
            return Ok(HashMap::new());
        }
        let mut command = git::side(&self.git_dir, Some(&self.work_tree));
        command.args(["cat-file", "--batch"]).stdin(Stdio::piped());
        let mut child = command.spawn()?;
        let mut stdin = child
            .stdin
            .take()
            .ok_or_else(|| io::Error::other("no stdin"))?;
        let request: String = oids.iter().map(|oid| format!("{oid}\n")).collect();
        // Written while the output is read, so a large answer cannot stall.
        let writer = tokio::spawn(async move {
            stdin.write_all(request.as_bytes()).await?;
            stdin.shutdown().await
        });
        let mut stdout = child
            .stdout
            .take()
            .ok_or_else(|| io::Error::other("no stdout"))?;
        let mut out = Vec::new();
        stdout.read_to_end(&mut out).await?;
        writer.await.map_err(io::Error::other)??;
        let status = child.wait().await?;
        if !status.success() {
            return Err(io::Error::other("git cat-file failed"));
        }
        parse_batch(&out)
    }

    /// Runs git on the side repository; fails with git's message.
    async fn git(&self, args: &[&str]) -> io::Result<Vec<u8>> {
        let mut command = git::side(&self.git_dir, Some(&self.work_tree));
        command.args(args);
        run(command).await
    }
}

/// The side repository's name for a work tree: a hash of its path.
fn key(work_tree: &Path) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(work_tree.as_os_str().as_encoded_bytes());
    hex::encode(&digest[..16])
}

async fn run(mut command: tokio::process::Command) -> io::Result<Vec<u8>> {
    let out = command.output().await?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(io::Error::other(
            String::from_utf8_lossy(&out.stderr).trim().to_string(),
        ))
    }
}

fn line(out: Vec<u8>) -> String {
    String::from_utf8_lossy(&out).trim().to_string()
}

/// `diff-tree --raw -z` output: `:old_mode new_mode old_oid new_oid status\0path\0`.
fn parse_raw(out: &[u8]) -> io::Result<Vec<Change>> {
    let bad = || io::Error::other("unexpected git diff-tree output");
    let mut fields = out.split(|b| *b == 0).filter(|f| !f.is_empty());
    let mut changes = Vec::new();
    while let Some(meta) = fields.next() {
        let path = fields.next().ok_or_else(bad)?;
        let meta = std::str::from_utf8(meta).map_err(|_| bad())?;
        let parts: Vec<&str> = meta.trim_start_matches(':').split(' ').collect();
        let [old_mode, new_mode, old_oid, new_oid, _status] = parts[..] else {
            return Err(bad());
        };
        let entry = |mode: &str, oid: &str| -> io::Result<Option<Entry>> {
            let mode = u32::from_str_radix(mode, 8).map_err(|_| bad())?;
            Ok((mode != 0).then(|| Entry {
                mode,
                oid: oid.to_string(),
            }))
        };
        changes.push(Change {
            path: PathBuf::from(OsString::from_vec(path.to_vec())),
            old: entry(old_mode, old_oid)?,
            new: entry(new_mode, new_oid)?,
        });
    }
    Ok(changes)
}

/// `cat-file --batch` output: `<oid> <type> <size>\n<bytes>\n` per object.
fn parse_batch(mut out: &[u8]) -> io::Result<HashMap<String, Vec<u8>>> {
    let bad = || io::Error::other("unexpected git cat-file output");
    let mut blobs = HashMap::new();
    while !out.is_empty() {
        let end = out.iter().position(|b| *b == b'\n').ok_or_else(bad)?;
        let header = std::str::from_utf8(&out[..end]).map_err(|_| bad())?;
        let parts: Vec<&str> = header.split(' ').collect();
        let [oid, _kind, size] = parts[..] else {
            return Err(io::Error::other(format!("git cannot read {header}")));
        };
        let size: usize = size.parse().map_err(|_| bad())?;
        let body = out.get(end + 1..end + 1 + size).ok_or_else(bad)?;
        blobs.insert(oid.to_string(), body.to_vec());
        out = out.get(end + 2 + size..).unwrap_or_default();
    }
    Ok(blobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_diff_output_is_parsed_with_modes_and_paths_as_bytes() {
        let z = "0".repeat(40);
        let a = "a".repeat(40);
        let b = "b".repeat(40);
        let out = format!(
            ":100644 100755 {a} {b} M\0bin/run\0:000000 120000 {z} {b} A\0link\0:100644 000000 {a} {z} D\0gone\0"
        );
        let mut raw = out.into_bytes();
        raw.extend(b":100644 100644 ");
        raw.extend(format!("{a} {b} M\0odd-").as_bytes());
        raw.extend(b"\xff\0");
        let changes = parse_raw(&raw).unwrap();
        assert_eq!(changes.len(), 4);
        assert!(changes[0].new.as_ref().unwrap().is_executable());
        assert!(changes[1].old.is_none() && changes[1].new.as_ref().unwrap().is_symlink());
        assert!(changes[2].new.is_none());
        assert_eq!(changes[3].path.as_os_str().as_encoded_bytes(), b"odd-\xff");
    }

    #[test]
    fn batch_output_is_split_by_size_not_by_lines() {
        let out = b"aaaa blob 5\nx\ny\nz\nbbbb blob 0\n\n";
        let blobs = parse_batch(out).unwrap();
        assert_eq!(blobs["aaaa"], b"x\ny\nz");
        assert_eq!(blobs["bbbb"], b"");
        assert!(parse_batch(b"cccc missing\n").is_err());
    }
}
