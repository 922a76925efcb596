//! Writing a checked skill into its place: every file into a hidden
//! staging folder beside the others (through the confinement, so a linked
//! `.codewhale` cannot send the writes elsewhere), then one rename. A
//! failed write leaves no half skill; a replaced one is removed only after
//! the new one is in place.

use super::import::Package;
use crate::{runtime::error::RuntimeError, workspace::confine::Workspace};
use std::path::Path;

pub fn write(root: &Path, dir: &str, package: &Package, replace: bool) -> Result<(), RuntimeError> {
    let confined = Workspace::new(root, false).map_err(|e| RuntimeError::Conflict(e.0))?;
    let name = &package.manifest.name;
    // The entry itself: a link there is replaced, never followed.
    let target = confined
        .entry(&format!("{dir}/{name}"))
        .map_err(|e| RuntimeError::Conflict(e.0))?;
    let exists = target.symlink_metadata().is_ok();
    if exists && !replace {
        return Err(RuntimeError::Conflict(format!(
            "a skill named {name} is already at {}; import with replace to overwrite it",
            target.display()
        )));
    }
    let nonce = crate::random::random_secret("", 6);
    let staging = format!("{dir}/.importing-{name}-{nonce}");
    let written = stage(&confined, &staging, package);
    let staged = confined
        .writable(&staging)
        .map_err(|e| RuntimeError::Conflict(e.0))?;
    if let Err(error) = written {
        let _ = std::fs::remove_dir_all(staged.as_path());
        return Err(error);
    }
    let set_aside = if exists {
        let aside = confined
            .writable(&format!("{dir}/.replaced-{name}-{nonce}"))
            .map_err(|e| RuntimeError::Conflict(e.0))?;
        if let Err(e) = std::fs::rename(target.as_path(), aside.as_path()) {
            let _ = std::fs::remove_dir_all(staged.as_path());
            return Err(RuntimeError::Conflict(format!(
                "the skill {name} could not be replaced: {e}"
            )));
        }
        Some(aside)
    } else {
        None
    };
    if let Err(e) = std::fs::rename(staged.as_path(), target.as_path()) {
        let _ = std::fs::remove_dir_all(staged.as_path());
        if let Some(aside) = &set_aside {
            let _ = std::fs::rename(aside.as_path(), target.as_path());
        }
        return Err(RuntimeError::Conflict(format!(
            "the skill {name} could not be put in place: {e}"
        )));
    }
    if let Some(aside) = set_aside {
        // A link or a file where a folder was is removed, not followed.
        let removed = match aside.symlink_metadata() {
            Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(aside.as_path()),
            _ => std::fs::remove_file(aside.as_path()),
        };
        if let Err(error) = removed {
            tracing::warn!(%error, "the replaced skill could not be removed");
        }
    }
    Ok(())
}

fn stage(confined: &Workspace, staging: &str, package: &Package) -> Result<(), RuntimeError> {
    let failed =
        |e: std::io::Error| RuntimeError::Conflict(format!("the skill could not be written: {e}"));
    for (path, bytes) in &package.files {
        let asked = format!("{staging}/{}", path.display());
        let file = confined
            .writable(&asked)
            .map_err(|e| RuntimeError::Conflict(e.0))?;
        let mut created = Vec::new();
        file.create_parents(&mut created).map_err(failed)?;
        file.write(bytes).map_err(failed)?;
    }
    Ok(())
}
