//! Text diffs as hunks and lines (`similar`, three lines of context as
//! git's default), cut to the per-file limits and a byte budget shared by
//! the whole diff.

use super::{MAX_HUNKS_PER_FILE, MAX_LINES_PER_FILE};
use protocol::{DiffHunk, DiffLine, DiffLineKind};
use similar::{ChangeTag, TextDiff};
use std::time::Duration;

const CONTEXT: usize = 3;
/// A pathological pair gives up on a minimal diff after this long (the
/// result is still a correct diff, only a longer one).
const DEADLINE: Duration = Duration::from_millis(500);

/// The hunks of `old` → `new`, and whether any were cut. `budget` is the
/// bytes of line text the diff may still send; it is spent here.
pub fn hunks(old: &str, new: &str, budget: &mut u64) -> (Vec<DiffHunk>, bool) {
    let diff = TextDiff::configure().timeout(DEADLINE).diff_lines(old, new);
    let (mut hunks, mut lines_sent, mut cut) = (Vec::new(), 0usize, false);
    'groups: for group in diff.grouped_ops(CONTEXT) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        if hunks.len() == MAX_HUNKS_PER_FILE {
            cut = true;
            break;
        }
        let (old_range, new_range) = (
            first.old_range().start..last.old_range().end,
            first.new_range().start..last.new_range().end,
        );
        let mut hunk = DiffHunk {
            old_start: start(old_range.start, old_range.len()),
            old_lines: old_range.len() as u32,
            new_start: start(new_range.start, new_range.len()),
            new_lines: new_range.len() as u32,
            header: String::new(),
            lines: Vec::new(),
        };
        hunk.header = format!(
            "@@ -{},{} +{},{} @@",
            hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines
        );
        for op in &group {
            for change in diff.iter_changes(op) {
                let text = change.value().trim_end_matches(['\n', '\r']);
                if lines_sent == MAX_LINES_PER_FILE || text.len() as u64 > *budget {
                    cut = true;
                    hunks.push(hunk);
                    break 'groups;
                }
                *budget -= text.len() as u64;
                lines_sent += 1;
                hunk.lines.push(DiffLine {
                    kind: match change.tag() {
                        ChangeTag::Equal => DiffLineKind::Context,
                        ChangeTag::Insert => DiffLineKind::Add,
                        ChangeTag::Delete => DiffLineKind::Delete,
                    },
                    old_line: change.old_index().map(|i| i as u32 + 1),
                    new_line: change.new_index().map(|i| i as u32 + 1),
                    text: text.to_string(),
                });
            }
        }
        hunks.push(hunk);
    }
    hunks.retain(|h| !h.lines.is_empty());
    (hunks, cut)
}

/// git's numbering: 1-based, and an empty side names the line before it.
fn start(index: usize, len: usize) -> u32 {
    if len == 0 {
        index as u32
    } else {
        index as u32 + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunks_number_lines_like_git() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nd\nE\nf\ng\nh\ni\n";
        let mut budget = u64::MAX;
        let (hunks, cut) = hunks(old, new, &mut budget);
        assert!(!cut);
        assert_eq!(hunks.len(), 1);
        assert_eq!(hunks[0].header, "@@ -2,7 +2,8 @@");
        let changed: Vec<_> = hunks[0]
            .lines
            .iter()
            .filter(|l| l.kind != DiffLineKind::Context)
            .map(|l| (l.kind, l.old_line, l.new_line, l.text.as_str()))
            .collect();
        assert_eq!(
            changed,
            [
                (DiffLineKind::Delete, Some(5), None, "e"),
                (DiffLineKind::Add, None, Some(5), "E"),
                (DiffLineKind::Add, None, Some(9), "i"),
            ]
        );
        let (added, _) = super::hunks("", "x\n", &mut budget);
        assert_eq!(added[0].header, "@@ -0,0 +1,1 @@");
    }

    #[test]
    fn the_budget_cuts() {
        let mut budget = 3;
        let (hunks, cut) = hunks("", "ab\ncd\n", &mut budget);
        assert!(cut);
        assert_eq!(hunks[0].lines.len(), 1);
        assert_eq!(budget, 1);
    }
}
