//! Reading a skill to import: a folder, or a zip (`.skill`) or tar
//! (optionally gzipped) archive, into memory, checked entry by entry
//! before anything is written. Nothing in it runs. Refused: links and
//! special files, paths that are absolute or climb out (`..`), more than
//! `MAX_FILES` files, `MAX_BYTES` in all (counted as decompressed, so a
//! small bomb is stopped early), and any SKILL.md that does not parse.
//! The skill is at the top of a folder, and at the top or inside the one
//! folder of an archive.

use super::manifest::{self, Manifest, SKILL_MD};
use crate::workspace::confine::Workspace;
use std::{
    io::Read,
    path::{Component, Path, PathBuf},
};

pub const MAX_FILES: usize = 256;
pub const MAX_BYTES: u64 = 8 * 1024 * 1024;
/// Entries of an archive looked at (folders and skipped ones included).
const MAX_ENTRIES: usize = 1024;
/// What a tar stream may decompress to in all: the files' budget plus
/// room for headers, folders and skipped entries. The `tar` crate reads
/// long-name and PAX headers whole before an entry is seen, so the stream
/// itself is what bounds them.
const MAX_STREAM_BYTES: u64 = 2 * MAX_BYTES;
const MAX_DEPTH: usize = 12;

/// A checked skill: its manifest and every file, relative to its folder.
pub struct Package {
    pub manifest: Manifest,
    pub files: Vec<(PathBuf, Vec<u8>)>,
}

/// Why an import was refused: not a valid skill, too big, or nothing
/// readable there.
#[derive(Debug)]
pub enum Refused {
    Invalid(String),
    TooLarge(String),
    Unreadable(String),
}

impl From<String> for Refused {
    fn from(message: String) -> Self {
        Refused::Invalid(message)
    }
}

pub fn read(source: &Path) -> Result<Package, Refused> {
    let meta = std::fs::symlink_metadata(source)
        .map_err(|e| Refused::Unreadable(format!("cannot read {}: {e}", source.display())))?;
    let mut files = Files::default();
    if meta.is_dir() {
        // Looked for first: a folder that is not a skill is not walked.
        if !std::fs::symlink_metadata(source.join(SKILL_MD)).is_ok_and(|m| m.is_file()) {
            return Err(Refused::Invalid(format!(
                "{} holds no {SKILL_MD}",
                source.display()
            )));
        }
        read_folder(source, &mut files)?;
    } else if meta.is_file() {
        let mut head = [0u8; 262];
        let n = std::fs::File::open(source)
            .and_then(|mut f| read_up_to(&mut f, &mut head))
            .map_err(|e| format!("cannot read {}: {e}", source.display()))?;
        let head = &head[..n];
        let open = || {
            std::fs::File::open(source)
                .map_err(|e| format!("cannot read {}: {e}", source.display()))
        };
        if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
            read_zip(open()?, &mut files)?;
        } else if head.starts_with(&[0x1f, 0x8b]) {
            read_tar(flate2::read::MultiGzDecoder::new(open()?), &mut files)?;
        } else if head.get(257..262) == Some(b"ustar") {
            read_tar(open()?, &mut files)?;
        } else {
            return Err(Refused::Invalid(
                "not a folder, a zip or a tar archive (.tar, .tar.gz)".into(),
            ));
        }
    } else {
        return Err(Refused::Invalid(format!(
            "{} is not a folder or a file",
            source.display()
        )));
    }
    package(files.0)
}

fn read_up_to(file: &mut std::fs::File, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match file.read(&mut buffer[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

#[derive(Default)]
struct Files(Vec<(PathBuf, Vec<u8>)>, u64);

impl Files {
    /// Reads one file's bytes, within what is left of the budget.
    fn add(&mut self, path: PathBuf, declared: u64, reader: impl Read) -> Result<(), Refused> {
        // A second entry of one name (or of names a case-insensitive disk
        // would make one) would replace what was checked.
        let folded = path.to_string_lossy().to_lowercase();
        if self
            .0
            .iter()
            .any(|(p, _)| p.to_string_lossy().to_lowercase() == folded)
        {
            return Err(Refused::Invalid(format!(
                "{} is in the skill twice",
                path.display()
            )));
        }
        if self.0.len() >= MAX_FILES {
            return Err(Refused::TooLarge(format!(
                "a skill holds at most {MAX_FILES} files"
            )));
        }
        let left = MAX_BYTES - self.1;
        let too_large = || Refused::TooLarge(format!("a skill holds at most {MAX_BYTES} bytes"));
        if declared > left {
            return Err(too_large());
        }
        let mut bytes = Vec::new();
        reader
            .take(left + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if bytes.len() as u64 > left {
            return Err(too_large());
        }
        self.1 += bytes.len() as u64;
        self.0.push((path, bytes));
        Ok(())
    }
}

/// A relative path of plain names, or why not.
fn clean(path: &Path) -> Result<PathBuf, Refused> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Normal(name) if name.to_str().is_some() => out.push(name),
            Component::CurDir => {}
            _ => {
                return Err(Refused::Invalid(format!(
                    "the path {} leaves the skill's folder or is not plain text",
                    path.display()
                )))
            }
        }
    }
    if out.as_os_str().is_empty() {
        return Err(Refused::Invalid(format!(
            "the entry {:?} names no file",
            path.display()
        )));
    }
    if out.components().count() > MAX_DEPTH {
        return Err(Refused::Invalid(format!(
            "{} is nested too deep",
            path.display()
        )));
    }
    Ok(out)
}

/// Archives made on a Mac carry these; they are not part of the skill.
fn is_litter(path: &Path) -> bool {
    path.components().any(|c| {
        let name = c.as_os_str();
        name == "__MACOSX" || name == ".DS_Store"
    })
}

fn read_folder(root: &Path, files: &mut Files) -> Result<(), Refused> {
    // Read through the confinement like a workspace: nothing reached
    // through a link, even one swapped in while reading.
    let confined = Workspace::new(root, false).map_err(|e| Refused::Invalid(e.0))?;
    let mut pending = vec![PathBuf::new()];
    while let Some(dir) = pending.pop() {
        let entries = std::fs::read_dir(confined.root().join(&dir))
            .map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
            let relative = clean(&dir.join(entry.file_name()))?;
            if is_litter(&relative) {
                continue;
            }
            let kind = entry
                .file_type()
                .map_err(|e| format!("cannot read {}: {e}", relative.display()))?;
            if kind.is_dir() {
                pending.push(relative);
            } else if kind.is_file() {
                let asked = relative.to_str().unwrap_or_default();
                let file = confined
                    .existing(asked)
                    .map_err(|e| Refused::Invalid(e.0))?
                    .open_read()
                    .map_err(|e| format!("cannot read {asked}: {e}"))?;
                let declared = file.metadata().map(|m| m.len()).unwrap_or(0);
                files.add(relative, declared, file)?;
            } else {
                return Err(Refused::Invalid(format!(
                    "{} is a link or a special file; a skill holds only files and folders",
                    relative.display()
                )));
            }
        }
    }
    Ok(())
}

fn read_zip(file: std::fs::File, files: &mut Files) -> Result<(), Refused> {
    let mut archive =
        zip::ZipArchive::new(file).map_err(|e| format!("not a readable zip archive: {e}"))?;
    if archive.len() > MAX_ENTRIES {
        return Err(Refused::TooLarge(format!(
            "an archive holds at most {MAX_ENTRIES} entries"
        )));
    }
    for index in 0..archive.len() {
        let entry = archive
            .by_index(index)
            .map_err(|e| format!("cannot read the zip archive: {e}"))?;
        let raw = PathBuf::from(entry.name());
        if entry.is_symlink() {
            return Err(Refused::Invalid(format!(
                "{} is a link; a skill holds only files and folders",
                raw.display()
            )));
        }
        if entry.is_dir() && clean_or_top(&raw) {
            continue;
        }
        // enclosed_name refuses absolute paths and `..`; `clean` says why.
        let relative = match entry.enclosed_name() {
            Some(path) => clean(&path)?,
            None => clean(&raw)?,
        };
        if entry.is_dir() || is_litter(&relative) {
            continue;
        }
        let declared = entry.size();
        files.add(relative, declared, entry)?;
    }
    Ok(())
}

fn read_tar(reader: impl Read, files: &mut Files) -> Result<(), Refused> {
    let exceeded = std::rc::Rc::new(std::cell::Cell::new(false));
    let bounded = Bounded {
        inner: reader,
        left: MAX_STREAM_BYTES,
        exceeded: exceeded.clone(),
    };
    let too_large = || {
        Refused::TooLarge(format!(
            "the archive unpacks to more than {MAX_STREAM_BYTES} bytes"
        ))
    };
    let mut archive = tar::Archive::new(bounded);
    let entries = archive
        .entries()
        .map_err(|e| format!("not a readable tar archive: {e}"))?;
    for (index, entry) in entries.enumerate() {
        if index >= MAX_ENTRIES {
            return Err(Refused::TooLarge(format!(
                "an archive holds at most {MAX_ENTRIES} entries"
            )));
        }
        let entry = match entry {
            Ok(entry) => entry,
            Err(_) if exceeded.get() => return Err(too_large()),
            Err(e) => return Err(format!("cannot read the tar archive: {e}").into()),
        };
        let kind = entry.header().entry_type();
        // `git archive` and GitHub's tarballs start with one of these.
        if kind.is_pax_global_extensions() {
            continue;
        }
        let raw = entry
            .path()
            .map_err(|e| format!("cannot read the tar archive: {e}"))?
            .into_owned();
        if kind.is_dir() && clean_or_top(&raw) {
            continue;
        }
        let relative = clean(&raw)?;
        if kind.is_dir() || is_litter(&relative) {
            continue;
        }
        // PAX and GNU long-name headers are read by `tar` itself; anything
        // else that is not a plain file (links, devices, FIFOs) is refused.
        if !kind.is_file() {
            return Err(Refused::Invalid(format!(
                "{} is a link or a special file; a skill holds only files and folders",
                raw.display()
            )));
        }
        let declared = entry.header().size().unwrap_or(u64::MAX);
        match files.add(relative, declared, entry) {
            Err(_) if exceeded.get() => return Err(too_large()),
            other => other?,
        }
    }
    if exceeded.get() {
        return Err(too_large());
    }
    Ok(())
}

/// A folder entry naming the archive's top (`./`): nothing to refuse.
fn clean_or_top(path: &Path) -> bool {
    path.components().all(|c| c == Component::CurDir)
}

/// A reader that fails once `left` bytes have been read, and says so.
struct Bounded<R> {
    inner: R,
    left: u64,
    exceeded: std::rc::Rc<std::cell::Cell<bool>>,
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            self.exceeded.set(true);
            return Err(std::io::Error::other("the archive is too large"));
        }
        let room = buffer
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buffer[..room])?;
        self.left -= n as u64;
        Ok(n)
    }
}

/// Finds the skill (at the top, or in the one top folder) and checks it.
fn package(files: Vec<(PathBuf, Vec<u8>)>) -> Result<Package, Refused> {
    let at_top = files.iter().any(|(p, _)| p == Path::new(SKILL_MD));
    let prefix = if at_top {
        PathBuf::new()
    } else {
        let mut tops = files.iter().filter_map(|(p, _)| {
            let mut components = p.components();
            let first = components.next()?;
            components.next().map(|_| PathBuf::from(first.as_os_str()))
        });
        let first = tops.next();
        let one_folder = first.as_ref().is_some_and(|f| {
            tops.all(|t| &t == f) && files.iter().all(|(p, _)| p.starts_with(f) && p != f)
        });
        match first {
            Some(folder) if one_folder => folder,
            _ => {
                return Err(Refused::Invalid(format!(
                    "no {SKILL_MD} at the top, or inside one top folder"
                )))
            }
        }
    };
    let files: Vec<_> = files
        .into_iter()
        .map(|(path, bytes)| {
            let inner = path.strip_prefix(&prefix).unwrap_or(&path).to_path_buf();
            (inner, bytes)
        })
        .collect();
    let skill_md = files
        .iter()
        .find(|(p, _)| p == Path::new(SKILL_MD))
        .map(|(_, bytes)| bytes)
        .ok_or_else(|| Refused::Invalid(format!("no {SKILL_MD} in the skill's folder")))?;
    if skill_md.len() > manifest::MAX_SKILL_MD_BYTES {
        return Err(Refused::TooLarge(format!(
            "{SKILL_MD} is larger than {} bytes",
            manifest::MAX_SKILL_MD_BYTES
        )));
    }
    let text = std::str::from_utf8(skill_md)
        .map_err(|_| Refused::Invalid(format!("{SKILL_MD} is not UTF-8 text")))?;
    let manifest = manifest::parse(text)?;
    Ok(Package { manifest, files })
}
