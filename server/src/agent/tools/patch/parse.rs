//! Reading a patch into file operations. Two formats: the Codex/OpenAI
//! `*** Begin Patch` envelope and a (multi-file, optionally git-style)
//! unified diff. Nothing here touches the filesystem.
//!
//! Over 400 lines on purpose: one grammar per format, each read top to
//! bottom; split, the two would share helpers across files for no gain.

/// One line of a hunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    Context(String),
    Remove(String),
    Add(String),
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hunk {
    /// How errors name the hunk: its `@@` line, or "the first hunk".
    pub label: String,
    /// Codex `@@ fn main` header: a line to find before the hunk's lines.
    pub anchor: Option<String>,
    /// Unified `@@ -l,n`: where the old lines start (1-based), or for a
    /// hunk without old lines, the line they go after (0: the top).
    pub old_start: Option<usize>,
    pub lines: Vec<Line>,
    /// Codex `*** End of File`: the hunk's lines end the file.
    pub end_of_file: bool,
    /// `\ No newline at end of file` after the old / new side's last line.
    pub old_no_newline: bool,
    pub new_no_newline: bool,
}

impl Hunk {
    pub fn old_lines(&self) -> Vec<&str> {
        self.lines
            .iter()
            .filter_map(|l| match l {
                Line::Context(t) | Line::Remove(t) => Some(t.as_str()),
                Line::Add(_) => None,
            })
            .collect()
    }

    pub fn new_lines(&self) -> Vec<&str> {
        self.lines
            .iter()
            .filter_map(|l| match l {
                Line::Context(t) | Line::Add(t) => Some(t.as_str()),
                Line::Remove(_) => None,
            })
            .collect()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileOp {
    Add {
        path: String,
        content: String,
    },
    /// `hunks` (unified diffs only) must match what is deleted.
    Delete {
        path: String,
        hunks: Vec<Hunk>,
    },
    Update {
        path: String,
        move_to: Option<String>,
        hunks: Vec<Hunk>,
    },
}

impl FileOp {
    /// "A x", "D x", "M x" or "R x -> y", as in the approval prompt.
    pub fn short(&self) -> String {
        match self {
            FileOp::Add { path, .. } => format!("A {path}"),
            FileOp::Delete { path, .. } => format!("D {path}"),
            FileOp::Update {
                path,
                move_to: Some(to),
                ..
            } => format!("R {path} -> {to}"),
            FileOp::Update { path, .. } => format!("M {path}"),
        }
    }
}

/// Either format, told apart by the Codex envelope's first line.
pub fn parse(text: &str) -> Result<Vec<FileOp>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let ops = if lines.iter().any(|l| l.trim() == BEGIN) {
        parse_codex(&lines)?
    } else if lines
        .iter()
        .any(|l| l.starts_with("--- ") || l.starts_with("@@") || l.starts_with("diff --git "))
    {
        parse_unified(&lines)?
    } else {
        return Err(
            "the patch is neither a \"*** Begin Patch\" envelope nor a unified diff".into(),
        );
    };
    if ops.is_empty() {
        return Err("the patch changes no file".into());
    }
    Ok(ops)
}

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE: &str = "*** Move to: ";
const EOF_MARK: &str = "*** End of File";

fn parse_codex(lines: &[&str]) -> Result<Vec<FileOp>, String> {
    let start = lines
        .iter()
        .position(|l| l.trim() == BEGIN)
        .unwrap_or_default();
    let end = lines
        .iter()
        .rposition(|l| l.trim() == END)
        .filter(|end| *end > start)
        .ok_or("the patch has no \"*** End Patch\" line; was it cut short?")?;
    let body = &lines[start + 1..end];
    let mut ops = Vec::new();
    let mut i = 0;
    while i < body.len() {
        let line = body[i];
        i += 1;
        if let Some(path) = line.strip_prefix(ADD) {
            let path = path_arg(path, line)?;
            let (content, next) = codex_add(body, i, &path)?;
            ops.push(FileOp::Add { path, content });
            i = next;
        } else if let Some(path) = line.strip_prefix(DELETE) {
            let path = path_arg(path, line)?;
            ops.push(FileOp::Delete {
                path,
                hunks: Vec::new(),
            });
        } else if let Some(path) = line.strip_prefix(UPDATE) {
            let path = path_arg(path, line)?;
            let mut move_to = None;
            if let Some(to) = body.get(i).and_then(|l| l.strip_prefix(MOVE)) {
                move_to = Some(path_arg(to, body[i])?);
                i += 1;
            }
            let (hunks, next) = codex_hunks(body, i, &path)?;
            if hunks.is_empty() && move_to.is_none() {
                return Err(format!("*** Update File: {path} has no hunks"));
            }
            ops.push(FileOp::Update {
                path,
                move_to,
                hunks,
            });
            i = next;
        } else if !line.trim().is_empty() {
            return Err(format!(
                "expected \"*** Add File:\", \"*** Delete File:\" or \"*** Update File:\", got {}",
                quote(line)
            ));
        }
    }
    Ok(ops)
}

/// The `+` lines of an added file, up to the next `***` line.
fn codex_add(body: &[&str], mut i: usize, path: &str) -> Result<(String, usize), String> {
    let mut content = String::new();
    while let Some(line) = body.get(i).filter(|l| !l.starts_with("*** ")) {
        match line.strip_prefix('+') {
            Some(text) => {
                content.push_str(text);
                content.push('\n');
            }
            None if line.is_empty() => content.push('\n'),
            None => {
                return Err(format!(
                    "*** Add File: {path}: every line must start with '+', got {}",
                    quote(line)
                ))
            }
        }
        i += 1;
    }
    Ok((content, i))
}

/// The hunks of an updated file, up to the next file header. The first
/// hunk may omit its `@@` line.
fn codex_hunks(body: &[&str], mut i: usize, path: &str) -> Result<(Vec<Hunk>, usize), String> {
    let mut hunks: Vec<Hunk> = Vec::new();
    while let Some(&line) = body.get(i) {
        if line.trim_end() == EOF_MARK {
            match hunks.last_mut() {
                Some(hunk) => hunk.end_of_file = true,
                None => return Err(format!("{path}: \"{EOF_MARK}\" before any hunk")),
            }
            i += 1;
            continue;
        }
        if line.starts_with("*** ") {
            break;
        }
        if line.is_empty() && only_blank_until_next(body, i) {
            i += 1;
            continue;
        }
        if let Some(header) = line.strip_prefix("@@") {
            hunks.push(codex_header(header.trim()));
        } else {
            let parsed = hunk_line(line).ok_or_else(|| {
                format!(
                    "{path}: hunk lines start with ' ', '-' or '+' (or \"@@\"), got {}",
                    quote(line)
                )
            })?;
            if hunks.is_empty() || hunks.last().is_some_and(|h| h.end_of_file) {
                hunks.push(Hunk::default());
            }
            if let Some(hunk) = hunks.last_mut() {
                hunk.lines.push(parsed);
            }
        }
        i += 1;
    }
    for (n, hunk) in hunks.iter_mut().enumerate() {
        if hunk.label.is_empty() {
            hunk.label = format!("hunk {}", n + 1);
        }
        if hunk.lines.is_empty() {
            return Err(format!("{path}: {} is empty", hunk.label));
        }
    }
    Ok((hunks, i))
}

/// Whether only empty lines follow up to the next `@@` or `***` line (blank
/// lines between sections are layout, not empty context lines).
fn only_blank_until_next(body: &[&str], i: usize) -> bool {
    body[i..]
        .iter()
        .take_while(|l| !l.starts_with("*** ") && !l.starts_with("@@"))
        .all(|l| l.is_empty())
}

/// `@@`, `@@ fn main() {` (a line to find first) or, from models mixing
/// the formats, `@@ -3,4 +3,5 @@` (a line number).
fn codex_header(header: &str) -> Hunk {
    let label = format!("@@ {header}").trim_end().to_string();
    if let Some((old_start, _)) = unified_range(header) {
        return Hunk {
            label,
            old_start: Some(old_start),
            ..Hunk::default()
        };
    }
    Hunk {
        label,
        anchor: Some(header.to_string()).filter(|h| !h.is_empty()),
        ..Hunk::default()
    }
}

fn hunk_line(line: &str) -> Option<Line> {
    let mut chars = line.chars();
    match chars.next() {
        // Models often drop the space of an empty context line.
        None => Some(Line::Context(String::new())),
        Some(' ') => Some(Line::Context(chars.as_str().to_string())),
        Some('-') => Some(Line::Remove(chars.as_str().to_string())),
        Some('+') => Some(Line::Add(chars.as_str().to_string())),
        Some(_) => None,
    }
}

fn path_arg(path: &str, line: &str) -> Result<String, String> {
    let path = path.trim();
    if path.is_empty() {
        return Err(format!("no path in {}", quote(line)));
    }
    Ok(path.to_string())
}

/// One file's part of a unified diff, as it is read.
#[derive(Default)]
struct Section {
    /// From `---` / `+++` (or the git header); `None` is /dev/null.
    old: Option<String>,
    new: Option<String>,
    /// Whether `---`/`+++` (or git's header) named the paths yet.
    named: bool,
    /// Whether this file's `---`/`+++` pair was read.
    headers_seen: bool,
    git_new_file: bool,
    git_deleted: bool,
    hunks: Vec<Hunk>,
}

fn parse_unified(lines: &[&str]) -> Result<Vec<FileOp>, String> {
    let mut ops = Vec::new();
    let mut section: Option<Section> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(rest) = line.strip_prefix("diff --git ") {
            finish(section.take(), &mut ops)?;
            section = Some(git_header(rest));
            i += 1;
        } else if line.starts_with("--- ")
            && lines.get(i + 1).is_some_and(|l| l.starts_with("+++ "))
        {
            // After `diff --git` the `---`/`+++` pair belongs to that file;
            // otherwise it starts the next one.
            let mut current = match section.take() {
                Some(s) if s.hunks.is_empty() && !s.headers_seen => s,
                other => {
                    finish(other, &mut ops)?;
                    Section::default()
                }
            };
            let (old, new) =
                strip_prefixes(header_path(&line[4..]), header_path(&lines[i + 1][4..]));
            current.old = old;
            current.new = new;
            current.named = true;
            current.headers_seen = true;
            section = Some(current);
            i += 2;
        } else if line.starts_with("@@") {
            let current = section.as_mut().filter(|s| s.named).ok_or_else(|| {
                format!(
                    "{} comes before any \"--- a/file\" / \"+++ b/file\" header",
                    quote(line)
                )
            })?;
            let (hunk, next) = unified_hunk(lines, i, current)?;
            current.hunks.push(hunk);
            i = next;
        } else {
            if let Some(current) = section.as_mut() {
                git_extended(line, current)?;
            }
            i += 1;
        }
    }
    finish(section, &mut ops)?;
    Ok(ops)
}

/// `diff --git a/x b/y`: the paths, unless quoted or ambiguous (then the
/// `---`/`+++` or rename lines that follow name them).
fn git_header(rest: &str) -> Section {
    let mut section = Section::default();
    if let Some((a, b)) = rest.split_once(" b/") {
        if let Some(a) = a.strip_prefix("a/") {
            section.old = Some(a.to_string());
            section.new = Some(b.trim_end().to_string());
            section.named = true;
        }
    }
    section
}

/// Git's extended header lines; anything else between files is ignored.
fn git_extended(line: &str, section: &mut Section) -> Result<(), String> {
    if line.starts_with("new file mode") {
        section.git_new_file = true;
    } else if line.starts_with("deleted file mode") {
        section.git_deleted = true;
    } else if let Some(from) = line.strip_prefix("rename from ") {
        section.old = Some(from.trim().to_string());
    } else if let Some(to) = line.strip_prefix("rename to ") {
        section.new = Some(to.trim().to_string());
    } else if line.starts_with("Binary files ") || line.starts_with("GIT binary patch") {
        return Err("binary patches are not supported".into());
    }
    Ok(())
}

/// The path of a `---`/`+++` line: a tab ends it (timestamps follow).
fn header_path(text: &str) -> Option<String> {
    let path = text.split('\t').next().unwrap_or_default().trim();
    (path != "/dev/null" && !path.is_empty()).then(|| path.to_string())
}

/// Git's `a/` and `b/`, removed only when the diff uses them on both sides.
fn strip_prefixes(old: Option<String>, new: Option<String>) -> (Option<String>, Option<String>) {
    let prefixed = old.as_deref().is_none_or(|p| p.starts_with("a/"))
        && new.as_deref().is_none_or(|p| p.starts_with("b/"))
        && (old.is_some() || new.is_some());
    if !prefixed {
        return (old, new);
    }
    let strip = |p: Option<String>| p.map(|p| p[2..].to_string());
    (strip(old), strip(new))
}

/// `-l[,n] +l[,n]` at the start of a hunk header: (old start, old count).
fn unified_range(header: &str) -> Option<(usize, usize)> {
    let mut parts = header.split_whitespace();
    let old = parts.next()?.strip_prefix('-')?;
    let new = parts.next()?.strip_prefix('+')?;
    let count = |range: &str| -> Option<(usize, usize)> {
        match range.split_once(',') {
            Some((start, n)) => Some((start.parse().ok()?, n.parse().ok()?)),
            None => Some((range.parse().ok()?, 1)),
        }
    };
    count(new)?;
    count(old)
}

/// The hunk whose `@@` line is `lines[at]`; returns it and the index after.
fn unified_hunk(lines: &[&str], at: usize, section: &Section) -> Result<(Hunk, usize), String> {
    let header = lines[at];
    let inner = header.trim_start_matches('@').trim();
    let range = inner
        .split("@@")
        .next()
        .map(str::trim)
        .and_then(unified_range);
    let counts = range.map(|(_, old_count)| (old_count, new_count(inner)));
    let mut hunk = Hunk {
        label: header.trim_end().to_string(),
        old_start: range.map(|(start, _)| start),
        ..Hunk::default()
    };
    let (mut old_seen, mut new_seen) = (0, 0);
    let mut i = at + 1;
    while let Some(&line) = lines.get(i) {
        if starts_next(lines, i) {
            break;
        }
        if line.starts_with('\\') {
            match hunk.lines.last() {
                Some(Line::Context(_)) => {
                    hunk.old_no_newline = true;
                    hunk.new_no_newline = true;
                }
                Some(Line::Remove(_)) => hunk.old_no_newline = true,
                Some(Line::Add(_)) => hunk.new_no_newline = true,
                None => {}
            }
            i += 1;
            continue;
        }
        let Some(parsed) = hunk_line(line) else {
            // Text after a complete hunk is commentary; inside one it is
            // a mistake that must not be half-applied.
            let complete = counts.is_some_and(|(old, new)| old_seen >= old && new_seen >= new);
            if complete {
                break;
            }
            return Err(format!(
                "{}: {}: hunk lines start with ' ', '-' or '+', got {}",
                section_name(section),
                hunk.label,
                quote(line)
            ));
        };
        match parsed {
            Line::Context(_) => (old_seen, new_seen) = (old_seen + 1, new_seen + 1),
            Line::Remove(_) => old_seen += 1,
            Line::Add(_) => new_seen += 1,
        }
        hunk.lines.push(parsed);
        i += 1;
    }
    // Blank lines after the last hunk are usually just the end of the text.
    while lines[..i].last().is_some_and(|l| l.is_empty())
        && hunk.lines.last() == Some(&Line::Context(String::new()))
    {
        hunk.lines.pop();
        i -= 1;
    }
    if hunk.lines.is_empty() {
        return Err(format!(
            "{}: {} is empty",
            section_name(section),
            hunk.label
        ));
    }
    Ok((hunk, i))
}

fn new_count(inner: &str) -> usize {
    inner
        .split_whitespace()
        .nth(1)
        .and_then(|r| r.strip_prefix('+'))
        .and_then(|r| match r.split_once(',') {
            Some((_, n)) => n.parse().ok(),
            None => Some(1),
        })
        .unwrap_or(0)
}

/// Whether `lines[i]` starts the next hunk or file.
fn starts_next(lines: &[&str], i: usize) -> bool {
    let line = lines[i];
    line.starts_with("@@")
        || line.starts_with("diff --git ")
        || (line.starts_with("--- ")
            && lines.get(i + 1).is_some_and(|l| l.starts_with("+++ "))
            && lines.get(i + 2).is_some_and(|l| l.starts_with("@@")))
}

fn section_name(section: &Section) -> &str {
    section
        .new
        .as_deref()
        .or(section.old.as_deref())
        .unwrap_or("?")
}

fn finish(section: Option<Section>, ops: &mut Vec<FileOp>) -> Result<(), String> {
    let Some(s) = section else { return Ok(()) };
    let op = match (s.old, s.new) {
        (None, None) => {
            return Err("a file header names no file (or /dev/null on both sides)".into())
        }
        (None, Some(path)) => FileOp::Add {
            content: added_content(&path, &s.hunks)?,
            path,
        },
        (Some(path), Some(_)) if s.git_new_file => FileOp::Add {
            content: added_content(&path, &s.hunks)?,
            path,
        },
        (Some(path), None) => FileOp::Delete {
            path,
            hunks: s.hunks,
        },
        (Some(path), Some(_)) if s.git_deleted => FileOp::Delete {
            path,
            hunks: s.hunks,
        },
        (Some(old), Some(new)) => {
            if s.hunks.is_empty() && old == new {
                return Err(format!("{old}: the diff has no hunks"));
            }
            FileOp::Update {
                move_to: (old != new).then_some(new),
                path: old,
                hunks: s.hunks,
            }
        }
    };
    ops.push(op);
    Ok(())
}

/// A new file's text: its hunks may only add.
fn added_content(path: &str, hunks: &[Hunk]) -> Result<String, String> {
    let mut content = String::new();
    for hunk in hunks {
        if hunk.lines.iter().any(|l| !matches!(l, Line::Add(_))) {
            return Err(format!(
                "{path}: a new file's hunks may only add lines ('+'), but {} does not",
                hunk.label
            ));
        }
        for line in hunk.new_lines() {
            content.push_str(line);
            content.push('\n');
        }
        if hunk.new_no_newline {
            content.pop();
        }
    }
    Ok(content)
}

/// A line quoted for an error message, cut to a readable length.
pub fn quote(line: &str) -> String {
    const MAX: usize = 120;
    if line.chars().count() <= MAX {
        return format!("{line:?}");
    }
    let cut: String = line.chars().take(MAX).collect();
    format!("{cut:?}…")
}
