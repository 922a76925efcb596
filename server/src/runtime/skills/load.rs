//! What `load_skill` reads: a skill's instructions or another file of its
//! folder, confined to the root the skill was found under (the home or the
//! workspace), text only and bounded.

use super::{manifest::SKILL_MD, read_manifest, Found};
use std::io::Read;

/// A file of a skill's folder, confined to its root: a regular file of at
/// most `limit` bytes, as text.
pub(super) fn read_text(
    root: &crate::workspace::confine::Workspace,
    path: &str,
    limit: usize,
) -> Result<String, String> {
    let file = root
        .existing(path)
        .map_err(|e| e.0)?
        .open_read()
        .map_err(|e| format!("cannot read {path}: {e}"))?;
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err(format!("{path} is not a file"));
    }
    if meta.len() > limit as u64 {
        return Err(format!("{path} is larger than {limit} bytes"));
    }
    let mut bytes = Vec::new();
    file.take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    // It may have grown since it was measured.
    if bytes.len() > limit {
        return Err(format!("{path} is larger than {limit} bytes"));
    }
    String::from_utf8(bytes).map_err(|_| format!("{path} is not UTF-8 text"))
}

/// The bytes of a file the model may read beside a SKILL.md.
pub const MAX_LOADED_FILE_BYTES: usize = 256 * 1024;

impl Found {
    /// What `load_skill` gives the model: the SKILL.md's instructions, or
    /// another file of the skill's folder, and the folder's other files.
    pub fn load(&self, file: Option<&str>) -> Result<String, String> {
        // Confined to the skill's own folder, not the root it was found
        // under: a link in a global skill must not reach the rest of the
        // home (its configuration, its keys).
        let root = crate::workspace::confine::Workspace::new(&self.root, false).map_err(|e| e.0)?;
        let folder = root.existing(&self.folder).map_err(|e| e.0)?;
        let root =
            crate::workspace::confine::Workspace::new(folder.as_path(), false).map_err(|e| e.0)?;
        let listing = listing(&root);
        match file.filter(|f| !f.is_empty() && *f != SKILL_MD) {
            None => {
                let (manifest, _) = read_manifest(&root, ".")?;
                let mut text = format!("# Skill: {}\n\n{}\n", manifest.name, manifest.body.trim());
                if !listing.is_empty() {
                    text.push_str(&format!(
                        "\nOther files in this skill (read one with load_skill and `file`): {}\n",
                        listing.join(", ")
                    ));
                }
                Ok(text)
            }
            Some(file) => {
                if std::path::Path::new(file)
                    .components()
                    .any(|c| !matches!(c, std::path::Component::Normal(_)))
                {
                    return Err(format!("{file:?} is not a path inside the skill's folder"));
                }
                read_text(&root, file, MAX_LOADED_FILE_BYTES)
            }
        }
    }
}

/// The folder's files besides SKILL.md (40 at most, from at most 400
/// entries looked at), for the model. Links are not followed.
fn listing(root: &crate::workspace::confine::Workspace) -> Vec<String> {
    let mut names = Vec::new();
    let mut seen = 0;
    let mut pending = vec![(root.root().to_path_buf(), String::new())];
    while let Some((dir, prefix)) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if names.len() >= 40 || seen > 400 {
                names.sort();
                return names;
            }
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                continue;
            };
            let shown = format!("{prefix}{name}");
            match entry.file_type() {
                Ok(kind) if kind.is_dir() && prefix.matches('/').count() < 4 => {
                    pending.push((entry.path(), format!("{shown}/")));
                }
                Ok(kind) if kind.is_file() && shown != SKILL_MD => names.push(shown),
                _ => {}
            }
        }
    }
    names.sort();
    names
}
