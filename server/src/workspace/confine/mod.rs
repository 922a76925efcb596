//! Confining paths to a workspace: the one resolver. Every file tool, and
//! every workspace view the API serves, goes through `Workspace::existing`
//! or `Workspace::writable`: both resolve each component of the path as
//! the kernel would, symlinks included (dangling ones too, and the last
//! component), and refuse a result outside the
//! workspace unless the thread has trust_mode. What they return is a
//! `Confined` path; files are read, written, created and removed only
//! through its operations, which never follow a symlink (see `nofollow`),
//! so a link swapped in after the check makes them fail instead of leaving
//! the workspace. (list_dir, grep_files and git_diff use the checked path
//! as is: a link swapped in between check and use could show them names or
//! text outside, never change anything.)
//!
//! A symlink inside that points inside stands for its target: reads,
//! writes, edits and deletes reach the target and leave the link alone.

mod nofollow;
#[cfg(test)]
mod tests;

use nofollow::Walk;
use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::path::{Component, Path, PathBuf};

/// Why a path was refused, in words for the asker (the model, or a person),
/// and of which kind (so the API can answer 403, 404 or 409).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfineError(pub String, pub Refusal);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// It leads outside the workspace (whether it exists is not told).
    Outside,
    /// Nothing is there.
    Missing,
    /// The workspace is gone, or the path cannot be resolved (a link loop).
    Unusable,
}

impl std::fmt::Display for ConfineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfineError {}

/// Symlinks followed in one path before giving up, like Linux's ELOOP.
const MAX_LINKS: usize = 40;

pub struct Workspace {
    root: PathBuf,
    trusted: bool,
}

/// A path that passed the workspace check, every symlink on it resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Confined(PathBuf);

/// One step of a path still to resolve.
enum Part {
    Root,
    Parent,
    Name(OsString),
}

impl Workspace {
    pub fn new(root: &Path, trusted: bool) -> Result<Self, ConfineError> {
        let root = root.canonicalize().map_err(|e| {
            ConfineError(
                format!("the workspace {} is not available: {e}", root.display()),
                Refusal::Unusable,
            )
        })?;
        Ok(Self { root, trusted })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// An existing path inside the workspace.
    pub fn existing(&self, asked: &str) -> Result<Confined, ConfineError> {
        let (path, exists) = self.resolve(asked)?;
        // Checked first: whether something exists outside is not told.
        let path = self.check(asked, path)?;
        if !exists {
            return Err(no_such(asked));
        }
        Ok(path)
    }

    /// A path that may not exist yet (for writes). `..` is refused outright
    /// unless trusted, as it always was for writes.
    pub fn writable(&self, asked: &str) -> Result<Confined, ConfineError> {
        if !self.trusted
            && Path::new(asked)
                .components()
                .any(|c| c == Component::ParentDir)
        {
            return Err(self.outside(asked));
        }
        let (path, _) = self.resolve(asked)?;
        self.check(asked, path)
    }

    /// The entry `asked` names, not what it links to: its directory
    /// resolved and confined like `writable`, the last name kept as is.
    /// For removing or replacing a symlink itself (restores do).
    pub fn entry(&self, asked: &str) -> Result<Confined, ConfineError> {
        let path = Path::new(asked);
        let Some(Component::Normal(name)) = path.components().next_back() else {
            return Err(self.outside(asked));
        };
        let parent = path
            .parent()
            .and_then(Path::to_str)
            .filter(|p| !p.is_empty())
            .unwrap_or(".");
        let mut dir = self.writable(parent)?.0;
        dir.push(name);
        self.check(asked, dir)
    }

    /// The path as shown to the model: relative to the workspace.
    pub fn display(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .map(|p| {
                if p.as_os_str().is_empty() {
                    ".".into()
                } else {
                    p.display().to_string()
                }
            })
            .unwrap_or_else(|_| path.display().to_string())
    }

    /// `asked` (relative to the root) with every symlink replaced by its
    /// target, and whether it exists. Unlike canonicalize, a missing
    /// component does not fail: it and the rest are taken as names to
    /// create. That is what makes a dangling link resolve to where a write
    /// through it would land.
    fn resolve(&self, asked: &str) -> Result<(PathBuf, bool), ConfineError> {
        let mut pending = Vec::new(); // next step last
        push_parts(&mut pending, Path::new(asked));
        let mut out = self.root.clone();
        let (mut links, mut exists) = (0, true);
        while let Some(part) = pending.pop() {
            match part {
                Part::Root => out = PathBuf::from("/"),
                // `out` has no symlinks, so popping is what the kernel does.
                Part::Parent if exists => {
                    out.pop();
                }
                Part::Parent => return Err(no_such(asked)),
                Part::Name(name) => {
                    out.push(name);
                    if !exists {
                        continue;
                    }
                    match std::fs::symlink_metadata(&out) {
                        Ok(meta) if meta.file_type().is_symlink() => {
                            links += 1;
                            if links > MAX_LINKS {
                                return Err(ConfineError(
                                    format!("{asked}: too many levels of symbolic links"),
                                    Refusal::Unusable,
                                ));
                            }
                            let target = std::fs::read_link(&out).map_err(|e| {
                                ConfineError(format!("{asked}: {e}"), Refusal::Unusable)
                            })?;
                            out.pop();
                            push_parts(&mut pending, &target);
                        }
                        Ok(_) => {}
                        // Missing, or below a file: the rest is to be created
                        // (and the operation will say why it cannot be).
                        Err(_) => exists = false,
                    }
                }
            }
        }
        Ok((out, exists))
    }

    fn check(&self, asked: &str, resolved: PathBuf) -> Result<Confined, ConfineError> {
        if self.trusted || resolved.starts_with(&self.root) {
            Ok(Confined(resolved))
        } else {
            Err(self.outside(asked))
        }
    }

    fn outside(&self, asked: &str) -> ConfineError {
        ConfineError(
            format!(
                "{asked}: outside the workspace; only paths inside {} are allowed",
                self.root.display()
            ),
            Refusal::Outside,
        )
    }
}

fn push_parts(pending: &mut Vec<Part>, path: &Path) {
    let parts: Vec<Part> = path
        .components()
        .filter_map(|c| match c {
            Component::RootDir => Some(Part::Root),
            Component::ParentDir => Some(Part::Parent),
            Component::Normal(name) => Some(Part::Name(name.to_os_string())),
            Component::CurDir | Component::Prefix(_) => None,
        })
        .collect();
    pending.extend(parts.into_iter().rev());
}

fn no_such(asked: &str) -> ConfineError {
    ConfineError(
        format!("{asked}: no such file or directory"),
        Refusal::Missing,
    )
}

/// The file operations of the tools; none follows a symlink (see
/// `nofollow` for what a link swapped in after the check can still do).
impl Confined {
    pub fn as_path(&self) -> &Path {
        &self.0
    }

    /// Opens the file for reading.
    pub fn open_read(&self) -> io::Result<File> {
        Walk::detect().open_read(&self.0)
    }

    /// Creates the file or replaces its contents; returns it, open.
    pub fn write(&self, bytes: &[u8]) -> io::Result<File> {
        Walk::detect().write(&self.0, bytes)
    }

    /// Creates the missing directories above the path, adding each to
    /// `created` (outermost first) as it is made, so a caller can undo
    /// even a partial failure.
    pub fn create_parents(&self, created: &mut Vec<Confined>) -> io::Result<()> {
        let mut dirs = Vec::new();
        let result = Walk::detect().create_parents(&self.0, &mut dirs);
        created.extend(dirs.into_iter().map(Confined));
        result
    }

    /// Removes the file (a symlink there is removed, not followed).
    pub fn remove_file(&self) -> io::Result<()> {
        Walk::detect().remove(&self.0, false)
    }

    /// Removes the (empty) directory.
    pub fn remove_dir(&self) -> io::Result<()> {
        Walk::detect().remove(&self.0, true)
    }
}

impl AsRef<Path> for Confined {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl std::ops::Deref for Confined {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}
