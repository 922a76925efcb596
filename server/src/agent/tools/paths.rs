//! Confining tool paths to the thread's workspace. Paths are resolved and
//! canonicalized (symlinks followed) before the check, so neither `..` nor
//! a symlink can lead outside unless the thread has trust_mode.

use super::ToolError;
use std::path::{Component, Path, PathBuf};

pub struct Workspace {
    root: PathBuf,
    trusted: bool,
}

impl Workspace {
    pub fn new(root: &Path, trusted: bool) -> Result<Self, ToolError> {
        let root = root.canonicalize().map_err(|e| {
            ToolError(format!(
                "the workspace {} is not available: {e}",
                root.display()
            ))
        })?;
        Ok(Self { root, trusted })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// An existing path inside the workspace.
    pub fn existing(&self, path: &str) -> Result<PathBuf, ToolError> {
        let joined = self.root.join(path);
        let canonical = joined
            .canonicalize()
            .map_err(|_| ToolError(format!("{path}: no such file or directory")))?;
        self.check(path, canonical)
    }

    /// A path that may not exist yet (for writes): its nearest existing
    /// ancestor is canonicalized and checked, the rest must be plain names.
    pub fn writable(&self, path: &str) -> Result<PathBuf, ToolError> {
        let joined = self.root.join(path);
        let mut existing = joined.as_path();
        let mut rest = Vec::new();
        while !existing.exists() {
            let name = existing
                .file_name()
                .ok_or_else(|| ToolError(format!("{path}: not a file path")))?;
            rest.push(name.to_os_string());
            existing = existing
                .parent()
                .ok_or_else(|| ToolError(format!("{path}: not a file path")))?;
        }
        if Path::new(path)
            .components()
            .any(|c| matches!(c, Component::ParentDir))
            && !self.trusted
        {
            return Err(self.outside(path));
        }
        let mut full = existing
            .canonicalize()
            .map_err(|e| ToolError(format!("{path}: {e}")))?;
        for name in rest.into_iter().rev() {
            full.push(name);
        }
        self.check(path, full)
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

    fn check(&self, asked: &str, canonical: PathBuf) -> Result<PathBuf, ToolError> {
        if self.trusted || canonical.starts_with(&self.root) {
            Ok(canonical)
        } else {
            Err(self.outside(asked))
        }
    }

    fn outside(&self, asked: &str) -> ToolError {
        ToolError(format!(
            "{asked}: outside the workspace; only paths inside {} are allowed",
            self.root.display()
        ))
    }
}
