//! File operations that never follow a symlink, on paths `Workspace` has
//! resolved (which therefore contain none): a link found on the way means
//! the tree changed after the check, and the operation fails.
//!
//! On Linux every directory from `/` down is opened (O_PATH|O_NOFOLLOW)
//! and held, and the next step names its child through the held directory
//! as `/proc/self/fd/N/name`: the kernel starts that lookup from the open
//! directory, as openat(2) would, not from its path. The last component is
//! opened with O_NOFOLLOW too. So a link swapped in for any component, at
//! any time, is refused: nothing is created, truncated, written or read
//! through it. (std has no openat and the workspace forbids unsafe code;
//! nix's `fs` feature would give openat2 with RESOLVE_BENEATH directly.)
//!
//! Without /proc (macOS, or Linux without /proc mounted) directories are
//! checked with lstat by path, then checked again after the file is opened
//! and the file compared (device, inode) with what the path names. A
//! directory swapped for a link in between can leave an empty file or
//! directory outside, but the operation is refused before any byte is
//! written, truncated or read.
//!
//! Not covered, in either mode: a held directory renamed elsewhere (no link
//! is followed, the tree was moved), and hard links (a file inside).

use nix::libc;
use std::ffi::{OsStr, OsString};
use std::fs::{self, File, OpenOptions};
use std::io::{self, ErrorKind, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

/// How directories on the way are reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Walk {
    /// Opened and held, children named through /proc/self/fd.
    Held,
    /// By path, checked with lstat, the result re-verified.
    ByPath,
}

/// A directory on the way: its path, and the open directory when held.
struct Dir {
    path: PathBuf,
    held: Option<File>,
}

/// O_NONBLOCK: a FIFO in the workspace must not hang the tool; it has no
/// effect on regular files.
const FILE_FLAGS: i32 = libc::O_NOFOLLOW | libc::O_NONBLOCK;
#[cfg(any(target_os = "linux", target_os = "android"))]
const DIR_FLAGS: i32 = libc::O_PATH | libc::O_DIRECTORY | libc::O_NOFOLLOW;
#[cfg(not(any(target_os = "linux", target_os = "android")))]
const DIR_FLAGS: i32 = libc::O_DIRECTORY | libc::O_NOFOLLOW;

impl Walk {
    pub fn detect() -> Walk {
        static WALK: OnceLock<Walk> = OnceLock::new();
        *WALK.get_or_init(|| {
            let held = cfg!(any(target_os = "linux", target_os = "android"))
                && File::open("/")
                    .and_then(|f| fs::metadata(format!("/proc/self/fd/{}/", f.as_raw_fd())))
                    .is_ok_and(|m| m.is_dir());
            if held {
                Walk::Held
            } else {
                Walk::ByPath
            }
        })
    }

    pub fn open_read(self, path: &Path) -> io::Result<File> {
        let (dir, name) = self.parent(path, None)?;
        let file = open(&dir, &name, OpenOptions::new().read(true))?;
        dir.verify(Some(&file), path)?;
        Ok(file)
    }

    /// Opened without O_TRUNC, truncated only once verified: a refused
    /// open changes nothing.
    pub fn write(self, path: &Path, bytes: &[u8]) -> io::Result<File> {
        let (dir, name) = self.parent(path, None)?;
        let mut file = open(&dir, &name, OpenOptions::new().write(true).create(true))?;
        dir.verify(Some(&file), path)?;
        if !file.metadata()?.is_file() {
            return Err(io::Error::other("not a regular file"));
        }
        file.set_len(0)?;
        file.write_all(bytes)?;
        Ok(file)
    }

    pub fn create_parents(self, path: &Path, created: &mut Vec<PathBuf>) -> io::Result<()> {
        let (dir, _) = self.parent(path, Some(created))?;
        dir.verify(None, path)
    }

    /// unlink(2)/rmdir(2) remove a final symlink itself, never its target.
    pub fn remove(self, path: &Path, is_dir: bool) -> io::Result<()> {
        let (dir, name) = self.parent(path, None)?;
        dir.verify(None, path)?;
        if is_dir {
            fs::remove_dir(dir.child(&name))
        } else {
            fs::remove_file(dir.child(&name))
        }
    }

    /// The directory holding `path`, reached from `/` one component at a
    /// time, and the last component; with `created`, missing directories
    /// are made on the way and recorded.
    fn parent(
        self,
        path: &Path,
        mut created: Option<&mut Vec<PathBuf>>,
    ) -> io::Result<(Dir, OsString)> {
        let not_resolved = || io::Error::other("not a resolved path");
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return Err(not_resolved());
        };
        let mut dir = Dir::root(self)?;
        for part in parent.components() {
            let part = match part {
                Component::RootDir => continue,
                Component::Normal(part) => part,
                _ => return Err(not_resolved()),
            };
            if let Some(created) = created.as_deref_mut() {
                match fs::create_dir(dir.child(part)) {
                    Ok(()) => created.push(dir.path.join(part)),
                    Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
                    Err(e) => return Err(e),
                }
            }
            dir = dir.enter(part)?;
        }
        Ok((dir, name.to_os_string()))
    }
}

impl Dir {
    fn root(walk: Walk) -> io::Result<Dir> {
        let held = match walk {
            Walk::Held => Some(
                OpenOptions::new()
                    .read(true)
                    .custom_flags(DIR_FLAGS)
                    .open("/")?,
            ),
            Walk::ByPath => None,
        };
        Ok(Dir {
            path: PathBuf::from("/"),
            held,
        })
    }

    /// How to name `name` in this directory without resolving its path.
    fn child(&self, name: &OsStr) -> PathBuf {
        match &self.held {
            Some(dir) => Path::new(&format!("/proc/self/fd/{}", dir.as_raw_fd())).join(name),
            None => self.path.join(name),
        }
    }

    fn enter(&self, name: &OsStr) -> io::Result<Dir> {
        let at = self.child(name);
        let path = self.path.join(name);
        let not_dir = || io::Error::new(ErrorKind::NotADirectory, "not a directory");
        if self.held.is_none() {
            let meta = fs::symlink_metadata(&at)?;
            if meta.file_type().is_symlink() {
                return Err(swapped());
            }
            if !meta.is_dir() {
                return Err(not_dir());
            }
            return Ok(Dir { path, held: None });
        }
        let dir = OpenOptions::new()
            .read(true)
            .custom_flags(DIR_FLAGS)
            .open(&at)
            .map_err(|e| link_or(e, &at))?;
        if !dir.metadata()?.is_dir() {
            return Err(not_dir());
        }
        Ok(Dir {
            path,
            held: Some(dir),
        })
    }

    /// Without held directories: this directory still has no link on its
    /// path, and `file` (if any) is what `path` names now.
    fn verify(&self, file: Option<&File>, path: &Path) -> io::Result<()> {
        if self.held.is_some() {
            return Ok(());
        }
        // lstat, not canonicalize: on a case-insensitive disk the names
        // asked for may differ in case from the ones stored.
        for dir in self.path.ancestors() {
            if fs::symlink_metadata(dir)?.file_type().is_symlink() {
                return Err(swapped());
            }
        }
        if let Some(file) = file {
            let (opened, named) = (file.metadata()?, fs::symlink_metadata(path)?);
            if (opened.dev(), opened.ino()) != (named.dev(), named.ino()) {
                return Err(swapped());
            }
        }
        Ok(())
    }
}

fn open(dir: &Dir, name: &OsStr, options: &mut OpenOptions) -> io::Result<File> {
    let at = dir.child(name);
    options
        .custom_flags(FILE_FLAGS)
        .open(&at)
        .map_err(|e| link_or(e, &at))
}

/// A failed open says so when it met a symlink (O_NOFOLLOW gives ELOOP on
/// Linux, other errors elsewhere, ENOTDIR with O_DIRECTORY).
fn link_or(error: io::Error, at: &Path) -> io::Error {
    let is_link = fs::symlink_metadata(at).is_ok_and(|m| m.file_type().is_symlink());
    if is_link || error.raw_os_error() == Some(libc::ELOOP) {
        swapped()
    } else {
        error
    }
}

fn swapped() -> io::Error {
    io::Error::other(
        "a symbolic link appeared on the path after it was checked; it was not followed",
    )
}
