//! apply_patch: several files changed at once, all or nothing. The patch
//! is parsed (`parse`), every file is read and every hunk applied in memory
//! (`apply`) before anything is written; a failure anywhere writes nothing.
//! If writing itself fails part-way (disk full, permissions), the files
//! already written are put back.

mod apply;
mod parse;

use super::{str_arg, write, ToolError, ToolOutput, Workspace};
use crate::workspace::confine::Confined;
use parse::FileOp;
use serde_json::{json, Value};
use std::path::Path;

pub fn apply_patch(workspace: &Workspace, args: &Value) -> Result<ToolOutput, ToolError> {
    let ops = parse::parse(str_arg(args, "patch")?).map_err(ToolError)?;
    let changes = ops
        .iter()
        .map(|op| plan(workspace, op))
        .collect::<Result<Vec<_>, _>>()?;
    refuse_overlaps(&changes)?;
    write_all(&changes)?;
    Ok(output(&changes))
}

/// "A x, M y, R a -> b" from the patch alone, for the approval prompt and
/// the transcript line; the error if it does not parse.
pub fn describe(args: &Value) -> Result<Vec<String>, String> {
    let patch = args["patch"]
        .as_str()
        .ok_or("missing string argument \"patch\"")?;
    Ok(parse::parse(patch)?.iter().map(FileOp::short).collect())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Add,
    Update,
    Delete,
    Move,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Add => "add",
            Kind::Update => "update",
            Kind::Delete => "delete",
            Kind::Move => "move",
        }
    }
}

/// One file's change, checked and computed, not yet written.
struct Change {
    kind: Kind,
    /// As the patch names it (the destination of a move).
    path: String,
    /// The source of a move.
    from: Option<String>,
    /// Where the text is now (`None` for an added file).
    source: Option<Confined>,
    /// Where the new text goes (`None` for a deleted file).
    target: Option<Confined>,
    before: String,
    after: String,
}

fn plan(workspace: &Workspace, op: &FileOp) -> Result<Change, ToolError> {
    match op {
        FileOp::Add { path, content } => Ok(Change {
            kind: Kind::Add,
            path: path.clone(),
            from: None,
            source: None,
            target: Some(new_file(workspace, path)?),
            before: String::new(),
            after: content.clone(),
        }),
        FileOp::Delete { path, hunks } => {
            let (source, before) = existing_file(workspace, path)?;
            if !hunks.is_empty() {
                patched(path, &before, hunks)?;
            }
            Ok(Change {
                kind: Kind::Delete,
                path: path.clone(),
                from: None,
                source: Some(source),
                target: None,
                before,
                after: String::new(),
            })
        }
        FileOp::Update {
            path,
            move_to,
            hunks,
        } => {
            let (source, before) = existing_file(workspace, path)?;
            let after = patched(path, &before, hunks)?;
            let (kind, shown, from, target) = match move_to {
                Some(to) => (
                    Kind::Move,
                    to.clone(),
                    Some(path.clone()),
                    new_file(workspace, to)?,
                ),
                None => (Kind::Update, path.clone(), None, source.clone()),
            };
            Ok(Change {
                kind,
                path: shown,
                from,
                source: Some(source),
                target: Some(target),
                before,
                after,
            })
        }
    }
}

/// An existing regular text file inside the workspace, and its text.
fn existing_file(workspace: &Workspace, path: &str) -> Result<(Confined, String), ToolError> {
    let full = workspace.existing(path)?;
    if !full.is_file() {
        return Err(ToolError(format!("{path} is not a file")));
    }
    let text =
        write::read_text(&full, path)?.ok_or_else(|| ToolError(format!("{path}: no such file")))?;
    Ok((full, text))
}

/// A path inside the workspace where nothing exists yet, neither under
/// the name the patch gives (not even a symlink) nor where that resolves
/// to, and whose existing ancestors are directories.
fn new_file(workspace: &Workspace, path: &str) -> Result<Confined, ToolError> {
    let full = workspace.writable(path)?;
    let named = workspace.root().join(path);
    if full.symlink_metadata().is_ok() || named.symlink_metadata().is_ok() {
        return Err(ToolError(format!(
            "{path} already exists; update it instead of adding it"
        )));
    }
    if let Some(blocker) = full.ancestors().skip(1).find(|a| a.is_file()) {
        return Err(ToolError(format!(
            "{path}: {} is a file, not a directory",
            workspace.display(blocker)
        )));
    }
    Ok(full)
}

fn patched(path: &str, before: &str, hunks: &[parse::Hunk]) -> Result<String, ToolError> {
    apply::apply(&apply::Text::parse(before), hunks)
        .map(|text| text.render())
        .map_err(|e| ToolError(format!("{path}: {e}; nothing was changed")))
}

/// Two changes to one file would each be computed from the original text;
/// refuse instead of letting the second silently win.
fn refuse_overlaps(changes: &[Change]) -> Result<(), ToolError> {
    let mut seen: Vec<(&Path, &str)> = Vec::new();
    for change in changes {
        let name = change.from.as_deref().unwrap_or(&change.path);
        let mut paths: Vec<&Path> = [&change.source, &change.target]
            .into_iter()
            .flatten()
            .map(Confined::as_path)
            .collect();
        paths.dedup();
        for path in &paths {
            if let Some((_, first)) = seen.iter().find(|(p, _)| p == path) {
                return Err(ToolError(format!(
                    "{name}: the patch already changes this file (as {first}); \
                     put all of a file's changes in one section"
                )));
            }
        }
        seen.extend(paths.into_iter().map(|p| (p, name)));
    }
    Ok(())
}

/// How to take back one write if a later one fails.
enum Undo {
    Restore(Confined, String),
    Remove(Confined),
    RemoveDir(Confined),
}

fn write_all(changes: &[Change]) -> Result<(), ToolError> {
    let mut undo = Vec::new();
    for change in changes {
        if let Err(error) = write_one(change, &mut undo) {
            for step in undo.into_iter().rev() {
                // Best effort: the original error is what the model needs.
                let _ = match step {
                    Undo::Restore(path, text) => path.write(text.as_bytes()).map(drop),
                    Undo::Remove(path) => path.remove_file(),
                    Undo::RemoveDir(path) => path.remove_dir(),
                };
            }
            return Err(ToolError(format!(
                "{}: {error}; the files written before it were restored",
                change.path
            )));
        }
    }
    Ok(())
}

/// Every file operation goes through `Confined`: no symlink is followed,
/// even one swapped in after the patch was checked.
fn write_one(change: &Change, undo: &mut Vec<Undo>) -> std::io::Result<()> {
    if let Some(target) = &change.target {
        if change.kind != Kind::Update {
            let mut created = Vec::new();
            let result = target.create_parents(&mut created);
            undo.extend(created.into_iter().map(Undo::RemoveDir));
            result?;
        }
        let file = target.write(change.after.as_bytes())?;
        undo.push(match change.kind {
            Kind::Update => Undo::Restore(target.clone(), change.before.clone()),
            _ => Undo::Remove(target.clone()),
        });
        if let (Some(source), Kind::Move) = (&change.source, change.kind) {
            // A moved script stays executable.
            if let Ok(meta) = source.open_read().and_then(|f| f.metadata()) {
                let _ = file.set_permissions(meta.permissions());
            }
        }
    }
    if let (Some(source), Kind::Delete | Kind::Move) = (&change.source, change.kind) {
        source.remove_file()?;
        undo.push(Undo::Restore(source.clone(), change.before.clone()));
    }
    Ok(())
}

fn output(changes: &[Change]) -> ToolOutput {
    let mut diff = String::new();
    let (mut added, mut removed) = (0, 0);
    let mut files = Vec::new();
    let mut summary = Vec::new();
    for change in changes {
        let from = change.from.as_deref().unwrap_or(&change.path);
        let old_label = match change.kind {
            Kind::Add => "/dev/null".to_string(),
            _ => format!("a/{from}"),
        };
        let new_label = match change.kind {
            Kind::Delete => "/dev/null".to_string(),
            _ => format!("b/{}", change.path),
        };
        let (file_diff, plus, minus) =
            write::unified_diff(&change.before, &change.after, &old_label, &new_label);
        // Git's header keeps a pure rename (no hunks) visible too.
        diff.push_str(&format!("diff --git a/{from} b/{}\n", change.path));
        if change.kind == Kind::Move {
            diff.push_str(&format!("rename from {from}\nrename to {}\n", change.path));
        }
        diff.push_str(&file_diff);
        added += plus;
        removed += minus;
        let mut file = json!({
            "path": change.path, "change": change.kind.name(), "added": plus, "removed": minus
        });
        if let Some(from) = &change.from {
            file["from"] = json!(from);
        }
        files.push(file);
        summary.push(match change.kind {
            Kind::Add => format!("A {} (+{plus})", change.path),
            Kind::Delete => format!("D {} (-{minus})", change.path),
            Kind::Update => format!("M {} (+{plus} -{minus})", change.path),
            Kind::Move => format!("R {from} -> {} (+{plus} -{minus})", change.path),
        });
    }
    ToolOutput {
        text: format!("Applied patch: {}", summary.join(", ")),
        metadata: json!({ "diff": diff, "added": added, "removed": removed, "files": files }),
    }
}

#[cfg(test)]
mod tests;
