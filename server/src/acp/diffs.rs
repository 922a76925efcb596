//! ACP shows an edit as `{path, oldText, newText}`; the runtime records a
//! unified diff (the write tools' metadata). Each file's hunks give the
//! changed region before and after (context lines on both sides), which is
//! what an editor needs to render the change. A file that did not exist has
//! no old text (`null`).

/// One file's change, `path` relative to the workspace.
#[derive(Debug, PartialEq, Eq)]
pub struct FileDiff {
    pub path: String,
    pub old_text: Option<String>,
    pub new_text: String,
}

/// The files of a unified diff (as `similar` and the patch tool write it).
pub fn parse(diff: &str) -> Vec<FileDiff> {
    let mut files: Vec<FileDiff> = Vec::new();
    let mut old_path: Option<String> = None;
    let mut created = false;
    for line in diff.lines() {
        if let Some(rest) = line.strip_prefix("--- ") {
            created = rest == "/dev/null";
            old_path = Some(strip_label(rest, "a/"));
        } else if let Some(rest) = line.strip_prefix("+++ ") {
            let path = if rest == "/dev/null" {
                old_path.clone().unwrap_or_default()
            } else {
                strip_label(rest, "b/")
            };
            files.push(FileDiff {
                path,
                old_text: (!created).then(String::new),
                new_text: String::new(),
            });
        } else if let Some(hunk) = line.strip_prefix("@@ ") {
            // `similar` labels a new file a/…, but its hunk starts at -0,0.
            if hunk.starts_with("-0,0 ") {
                if let Some(file) = files.last_mut() {
                    file.old_text = None;
                }
            }
        } else if let Some(file) = files.last_mut() {
            let (old, new) = match line.chars().next() {
                Some(' ') => (true, true),
                Some('-') => (true, false),
                Some('+') => (false, true),
                _ => continue,
            };
            let body = &line[1..];
            if old {
                if let Some(text) = file.old_text.as_mut() {
                    text.push_str(body);
                    text.push('\n');
                }
            }
            if new {
                file.new_text.push_str(body);
                file.new_text.push('\n');
            }
        }
    }
    files
}

fn strip_label(label: &str, prefix: &str) -> String {
    let label = label.split('\t').next().unwrap_or(label);
    label.strip_prefix(prefix).unwrap_or(label).to_string()
}

/// The paths an `apply_patch` patch names (its `*** … File:` headers).
pub fn patch_paths(patch: &str) -> Vec<String> {
    patch
        .lines()
        .filter_map(|line| {
            ["*** Add File: ", "*** Update File: ", "*** Delete File: "]
                .iter()
                .find_map(|header| line.strip_prefix(header))
        })
        .map(|path| path.trim().to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_gives_the_region_before_and_after() {
        let diff = "--- a/src/x.rs\n+++ b/src/x.rs\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n";
        assert_eq!(
            parse(diff),
            vec![FileDiff {
                path: "src/x.rs".into(),
                old_text: Some("one\ntwo\nthree\n".into()),
                new_text: "one\nTWO\nthree\n".into(),
            }]
        );
    }

    #[test]
    fn a_new_file_has_no_old_text_and_patches_have_several_files() {
        let created = "--- a/n.txt\n+++ b/n.txt\n@@ -0,0 +1 @@\n+hello\n";
        assert_eq!(parse(created)[0].old_text, None);
        assert_eq!(parse(created)[0].new_text, "hello\n");
        let patch = "diff --git a/a b/a\n--- /dev/null\n+++ b/a\n@@ -0,0 +1 @@\n+x\ndiff --git a/b b/b\n--- a/b\n+++ /dev/null\n@@ -1 +0,0 @@\n-y\n";
        let files = parse(patch);
        assert_eq!(files.len(), 2);
        assert_eq!(
            (files[0].path.as_str(), files[0].old_text.as_deref()),
            ("a", None)
        );
        assert_eq!(
            (files[1].path.as_str(), files[1].new_text.as_str()),
            ("b", "")
        );
        assert_eq!(files[1].old_text.as_deref(), Some("y\n"));
    }

    #[test]
    fn patch_headers_name_the_files() {
        let patch = "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: src/b.rs\n@@\n*** End Patch";
        assert_eq!(patch_paths(patch), vec!["a.txt", "src/b.rs"]);
    }
}
