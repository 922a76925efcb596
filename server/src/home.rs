//! `$CODEWHALE_HOME` (default `~/.codewhale`): everything the process writes
//! lives here, so a temporary directory makes a run hermetic.

use crate::error::RunError;
use std::path::PathBuf;

pub fn resolve() -> Result<PathBuf, RunError> {
    let home = path()?;
    create_private_dir(&home)?;
    Ok(home)
}

/// Where the home is, without creating it (`doctor` only looks).
pub fn path() -> Result<PathBuf, RunError> {
    match std::env::var_os("CODEWHALE_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => Ok(PathBuf::from(dir)),
        None => std::env::var_os("HOME")
            .filter(|v| !v.is_empty())
            .map(|home| PathBuf::from(home).join(".codewhale"))
            .ok_or_else(|| RunError::Config("set CODEWHALE_HOME or HOME".into())),
    }
}

/// Creates the directory readable by this user only: it holds transcripts.
fn create_private_dir(dir: &PathBuf) -> Result<(), RunError> {
    let fail =
        |e: std::io::Error| RunError::Config(format!("cannot create {}: {e}", dir.display()));
    if dir.is_dir() {
        return Ok(());
    }
    std::fs::create_dir_all(dir).map_err(fail)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(fail)?;
    }
    Ok(())
}
