//! Applying hunks to one file's text, in memory. Each hunk's old lines are
//! found at or after the end of the previous hunk: exactly first, then
//! ignoring trailing whitespace, then ignoring surrounding whitespace
//! (models often get indentation or trailing spaces slightly wrong).

use super::parse::{quote, Hunk, Line};

/// A text file as lines, remembering its line ending and final newline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Text {
    lines: Vec<String>,
    crlf: bool,
    final_newline: bool,
}

impl Text {
    pub fn parse(text: &str) -> Self {
        let crlf = text.find('\n').is_some_and(|i| text[..i].ends_with('\r'));
        let final_newline = text.ends_with('\n');
        let body = text.strip_suffix('\n').unwrap_or(text);
        let lines = if text.is_empty() {
            Vec::new()
        } else {
            body.split('\n')
                .map(|l| {
                    if crlf {
                        l.strip_suffix('\r').unwrap_or(l)
                    } else {
                        l
                    }
                    .to_string()
                })
                .collect()
        };
        Self {
            lines,
            crlf,
            final_newline,
        }
    }

    pub fn render(&self) -> String {
        if self.lines.is_empty() {
            return String::new();
        }
        let eol = if self.crlf { "\r\n" } else { "\n" };
        let mut out = self.lines.join(eol);
        if self.final_newline {
            out.push_str(eol);
        }
        out
    }
}

/// Why hunk `index` (0-based) did not apply.
#[derive(Debug, PartialEq, Eq)]
pub struct HunkError {
    pub index: usize,
    pub label: String,
    pub reason: String,
}

impl std::fmt::Display for HunkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "hunk {} ({}): {}",
            self.index + 1,
            self.label,
            self.reason
        )
    }
}

/// One hunk located in the original: replace `len` lines at `at`.
struct Replacement {
    at: usize,
    len: usize,
    new: Vec<String>,
}

pub fn apply(text: &Text, hunks: &[Hunk]) -> Result<Text, HunkError> {
    let mut replacements = Vec::with_capacity(hunks.len());
    let mut cursor = 0;
    for (index, hunk) in hunks.iter().enumerate() {
        let fail = |reason: String| HunkError {
            index,
            label: hunk.label.clone(),
            reason,
        };
        let at = locate(&text.lines, hunk, cursor).map_err(fail)?;
        let len = hunk.old_lines().len();
        replacements.push(Replacement {
            at,
            len,
            new: new_lines(hunk, &text.lines[at..at + len]),
        });
        cursor = at + len;
    }
    let mut out = text.clone();
    for (hunk, r) in hunks.iter().zip(&replacements).rev() {
        let touches_end = r.at + r.len == text.lines.len();
        out.lines.splice(r.at..r.at + r.len, r.new.iter().cloned());
        if touches_end && hunk.new_no_newline {
            out.final_newline = false;
        } else if touches_end && (hunk.old_no_newline || text.lines.is_empty()) {
            out.final_newline = true;
        }
    }
    Ok(out)
}

/// The hunk's new side, with context lines as the file has them: a loose
/// match must not rewrite the whitespace of lines the hunk keeps.
fn new_lines(hunk: &Hunk, matched: &[String]) -> Vec<String> {
    let mut old = matched.iter();
    let mut out = Vec::new();
    for line in &hunk.lines {
        match line {
            Line::Context(text) => out.push(old.next().unwrap_or(text).clone()),
            Line::Remove(_) => {
                old.next();
            }
            Line::Add(text) => out.push(text.clone()),
        }
    }
    out
}

/// Where the hunk's old lines start, searching from `cursor`.
fn locate(lines: &[String], hunk: &Hunk, mut cursor: usize) -> Result<usize, String> {
    if let Some(anchor) = &hunk.anchor {
        let found = find(lines, &[anchor.as_str()], cursor, None, false)
            .ok_or_else(|| format!("the context line {} was not found", quote(anchor)))?;
        cursor = found + 1;
    }
    let old = hunk.old_lines();
    if old.is_empty() {
        // Pure insertion: after the anchor, at the stated line, or at the end.
        return Ok(match (&hunk.anchor, hunk.old_start) {
            (Some(_), _) => cursor,
            (None, Some(after)) => after.clamp(cursor, lines.len().max(cursor)),
            (None, None) => lines.len().max(cursor),
        });
    }
    let hint = hunk.old_start.map(|start| start.saturating_sub(1));
    find(lines, &old, cursor, hint, hunk.end_of_file).ok_or_else(|| not_found(lines, &old, hint))
}

/// The first position >= `from` where `pattern` matches, trying the
/// strictest comparison everywhere before a looser one. With a hint the
/// nearest match wins; `at_end` prefers a match that ends the file.
fn find(
    lines: &[String],
    pattern: &[&str],
    from: usize,
    hint: Option<usize>,
    at_end: bool,
) -> Option<usize> {
    if pattern.len() > lines.len() || from > lines.len() - pattern.len() {
        return None;
    }
    let last = lines.len() - pattern.len();
    let mut candidates: Vec<usize> = (from..=last).collect();
    if let Some(hint) = hint {
        candidates.sort_by_key(|p| p.abs_diff(hint));
    }
    if at_end {
        candidates.sort_by_key(|p| *p != last);
    }
    let comparisons: [fn(&str, &str) -> bool; 3] = [
        |a, b| a == b,
        |a, b| a.trim_end() == b.trim_end(),
        |a, b| a.trim() == b.trim(),
    ];
    comparisons.iter().find_map(|same| {
        candidates.iter().copied().find(|&p| {
            pattern
                .iter()
                .zip(&lines[p..])
                .all(|(want, have)| same(have, want))
        })
    })
}

/// A readable account of a mismatch: what was expected and, when the
/// hunk said where, what is there instead.
fn not_found(lines: &[String], old: &[&str], hint: Option<usize>) -> String {
    const SHOWN: usize = 6;
    let mut message = String::from("these lines were not found in the file:");
    for line in old.iter().take(SHOWN) {
        message.push_str(&format!("\n  {}", quote(line)));
    }
    if old.len() > SHOWN {
        message.push_str(&format!("\n  … ({} more)", old.len() - SHOWN));
    }
    if let Some(start) = hint.filter(|h| *h < lines.len()) {
        let mismatch = old
            .iter()
            .zip(&lines[start..])
            .position(|(want, have)| want.trim() != have.trim());
        if let Some(offset) = mismatch {
            message.push_str(&format!(
                "\nline {} is {}",
                start + offset + 1,
                quote(&lines[start + offset])
            ));
        }
    }
    message.push_str("\nread the file again and copy the context lines exactly");
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hunk(lines: &[&str]) -> Hunk {
        Hunk {
            label: "@@".into(),
            lines: lines
                .iter()
                .map(|l| match l.split_at(1) {
                    ("-", t) => Line::Remove(t.into()),
                    ("+", t) => Line::Add(t.into()),
                    (_, t) => Line::Context(t.into()),
                })
                .collect(),
            ..Hunk::default()
        }
    }

    fn run(before: &str, hunks: &[Hunk]) -> Result<String, HunkError> {
        apply(&Text::parse(before), hunks).map(|t| t.render())
    }

    #[test]
    fn text_round_trips() {
        for text in ["", "a", "a\n", "a\nb", "a\r\nb\r\n", "\n\n"] {
            assert_eq!(Text::parse(text).render(), text, "{text:?}");
        }
    }

    #[test]
    fn hunks_apply_in_order_and_keep_line_endings() {
        let before = "a\r\nb\r\nc\r\nd\r\ne\r\n";
        let after = run(
            before,
            &[hunk(&[" a", "-b", "+B"]), hunk(&[" d", "+d2", " e"])],
        )
        .unwrap();
        assert_eq!(after, "a\r\nB\r\nc\r\nd\r\nd2\r\ne\r\n");
    }

    #[test]
    fn whitespace_differences_are_tolerated_but_exact_wins() {
        let before = "x  \n  y\nx\ny\n";
        // Exact match at line 3 is preferred over the fuzzy one at line 1.
        assert_eq!(
            run(before, &[hunk(&[" x", "-y", "+z"])]).unwrap(),
            "x  \n  y\nx\nz\n"
        );
        assert_eq!(
            run("x  \n  y\n", &[hunk(&[" x", "-y", "+z"])]).unwrap(),
            "x  \nz\n"
        );
    }

    #[test]
    fn a_hint_picks_the_nearest_match() {
        let mut h = hunk(&["-same", "+changed"]);
        h.old_start = Some(3);
        assert_eq!(
            run("same\nother\nsame\n", &[h]).unwrap(),
            "same\nother\nchanged\n"
        );
    }

    #[test]
    fn anchors_and_end_of_file() {
        let before = "fn a() {\n    x\n}\nfn b() {\n    x\n}\n";
        let mut h = hunk(&["-    x", "+    y"]);
        h.anchor = Some("fn b() {".into());
        assert_eq!(
            run(before, &[h]).unwrap(),
            "fn a() {\n    x\n}\nfn b() {\n    y\n}\n"
        );
        let mut h = hunk(&["-}", "+} // end"]);
        h.end_of_file = true;
        assert_eq!(
            run(before, &[h]).unwrap(),
            "fn a() {\n    x\n}\nfn b() {\n    x\n} // end\n"
        );
        let mut missing = hunk(&["+z"]);
        missing.anchor = Some("fn c() {".into());
        assert!(run(before, &[missing])
            .unwrap_err()
            .reason
            .contains("fn c()"));
    }

    #[test]
    fn insertions_and_newline_markers() {
        assert_eq!(run("a\n", &[hunk(&["+b"])]).unwrap(), "a\nb\n");
        let mut top = hunk(&["+first"]);
        top.old_start = Some(0);
        assert_eq!(run("a\n", &[top]).unwrap(), "first\na\n");
        let mut no_eol = hunk(&["-a", "+b"]);
        no_eol.new_no_newline = true;
        assert_eq!(run("a\n", &[no_eol]).unwrap(), "b");
        let mut gains_eol = hunk(&["-a", "+b"]);
        gains_eol.old_no_newline = true;
        assert_eq!(run("a", &[gains_eol]).unwrap(), "b\n");
        assert_eq!(run("", &[hunk(&["+x"])]).unwrap(), "x\n");
    }

    #[test]
    fn a_mismatch_names_the_hunk_and_the_line() {
        let mut second = hunk(&[" c", "-d", "+D"]);
        second.old_start = Some(3);
        second.label = "@@ -3,2 +3,2 @@".into();
        let error = run("a\nb\nc\nx\n", &[hunk(&["-a", "+A"]), second]).unwrap_err();
        assert_eq!(error.index, 1);
        let text = error.to_string();
        assert!(text.starts_with("hunk 2 (@@ -3,2 +3,2 @@)"), "{text}");
        assert!(
            text.contains("\"d\"") && text.contains("line 4 is \"x\""),
            "{text}"
        );
        // Hunks must not go backwards over a previous one.
        let error = run("a\nb\n", &[hunk(&["-b", "+B"]), hunk(&["-a", "+A"])]).unwrap_err();
        assert_eq!(error.index, 1);
    }
}
