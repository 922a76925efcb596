//! apply_patch on real files in a temporary workspace, in both formats.

use super::*;

struct Dir {
    dir: tempfile::TempDir,
    workspace: Workspace,
}

fn workspace(files: &[(&str, &str)]) -> Dir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    let workspace = Workspace::new(dir.path(), false).unwrap();
    Dir { dir, workspace }
}

impl Dir {
    fn patch(&self, patch: &str) -> Result<ToolOutput, ToolError> {
        apply_patch(&self.workspace, &json!({ "patch": patch }))
    }

    fn read(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(self.dir.path().join(path)).ok()
    }

    /// Every file under the workspace with its text, to prove nothing moved.
    fn snapshot(&self) -> Vec<(String, Vec<u8>)> {
        let mut files = Vec::new();
        let mut stack = vec![self.dir.path().to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    files.push((self.workspace.display(&path) + "/", Vec::new()));
                    stack.push(path);
                } else {
                    files.push((self.workspace.display(&path), std::fs::read(&path).unwrap()));
                }
            }
        }
        files.sort();
        files
    }
}

const MAIN: &str = "fn main() {\n    println!(\"one\");\n    println!(\"two\");\n}\n\nfn other() {\n    let x = 1;\n    let y = 2;\n    let z = 3;\n}\n";

#[test]
fn codex_add_delete_update_and_move() {
    let d = workspace(&[
        ("src/main.rs", MAIN),
        ("old.txt", "bye\n"),
        ("notes/a.md", "# A\ntext\n"),
    ]);
    let out = d
        .patch(
            "*** Begin Patch
*** Add File: src/new/lib.rs
+pub fn hello() {}
+
*** Delete File: old.txt
*** Update File: src/main.rs
@@ fn main() {
     println!(\"one\");
-    println!(\"two\");
+    println!(\"TWO\");
 }
@@ fn other() {
     let x = 1;
-    let y = 2;
+    let y = 20;
     let z = 3;
*** Update File: notes/a.md
*** Move to: docs/b.md
@@
-# A
+# B
 text
*** End of File
*** End Patch
",
        )
        .unwrap();
    assert_eq!(d.read("src/new/lib.rs").unwrap(), "pub fn hello() {}\n\n");
    assert_eq!(d.read("old.txt"), None);
    assert_eq!(
        d.read("src/main.rs").unwrap(),
        MAIN.replace("\"two\"", "\"TWO\"")
            .replace("y = 2;", "y = 20;")
    );
    assert_eq!(d.read("notes/a.md"), None);
    assert_eq!(d.read("docs/b.md").unwrap(), "# B\ntext\n");
    assert_eq!(
        out.text,
        "Applied patch: A src/new/lib.rs (+2), D old.txt (-1), M src/main.rs (+2 -2), \
         R notes/a.md -> docs/b.md (+1 -1)"
    );
    let files = &out.metadata["files"];
    assert_eq!(
        files[0],
        json!({"path": "src/new/lib.rs", "change": "add", "added": 2, "removed": 0})
    );
    assert_eq!(files[1]["change"], "delete");
    assert_eq!(files[2]["change"], "update");
    assert_eq!(
        files[3],
        json!({"path": "docs/b.md", "from": "notes/a.md", "change": "move", "added": 1, "removed": 1})
    );
    assert_eq!(out.metadata["added"], 5);
    assert_eq!(out.metadata["removed"], 4);
    let diff = out.metadata["diff"].as_str().unwrap();
    for expected in [
        "--- /dev/null\n+++ b/src/new/lib.rs\n",
        "--- a/old.txt\n+++ /dev/null\n",
        "--- a/src/main.rs\n+++ b/src/main.rs\n",
        "+    println!(\"TWO\");",
        "diff --git a/notes/a.md b/docs/b.md\nrename from notes/a.md\nrename to docs/b.md\n--- a/notes/a.md\n+++ b/docs/b.md\n",
    ] {
        assert!(diff.contains(expected), "{expected:?} not in\n{diff}");
    }
}

#[test]
fn unified_add_delete_update_and_rename() {
    let d = workspace(&[
        ("src/main.rs", MAIN),
        ("gone.txt", "a\nb\n"),
        ("x.txt", "same\n"),
    ]);
    let out = d
        .patch(
            "diff --git a/src/main.rs b/src/main.rs
index 83db48f..bf3c3ea 100644
--- a/src/main.rs
+++ b/src/main.rs
@@ -1,4 +1,4 @@
 fn main() {
-    println!(\"one\");
+    println!(\"ONE\");
     println!(\"two\");
 }
@@ -7,4 +7,5 @@ fn other() {
     let x = 1;
     let y = 2;
     let z = 3;
+    let w = 4;
 }
--- /dev/null
+++ b/added.txt
@@ -0,0 +1,2 @@
+first
+second
--- a/gone.txt
+++ /dev/null
@@ -1,2 +0,0 @@
-a
-b
diff --git a/x.txt b/y.txt
similarity index 100%
rename from x.txt
rename to y.txt
",
        )
        .unwrap();
    assert_eq!(
        d.read("src/main.rs").unwrap(),
        MAIN.replace("\"one\"", "\"ONE\"")
            .replace("    let z = 3;\n", "    let z = 3;\n    let w = 4;\n")
    );
    assert_eq!(d.read("added.txt").unwrap(), "first\nsecond\n");
    assert_eq!(d.read("gone.txt"), None);
    assert_eq!(d.read("x.txt"), None);
    assert_eq!(d.read("y.txt").unwrap(), "same\n");
    assert_eq!(
        out.text,
        "Applied patch: M src/main.rs (+2 -1), A added.txt (+2), D gone.txt (-2), \
         R x.txt -> y.txt (+0 -0)"
    );
    assert!(out.metadata["diff"]
        .as_str()
        .unwrap()
        .contains("diff --git a/x.txt b/y.txt\nrename from x.txt\nrename to y.txt\n"));
    // The recorded diff is itself a patch this tool reads.
    let ops = parse::parse(out.metadata["diff"].as_str().unwrap()).unwrap();
    let shorts: Vec<String> = ops.iter().map(FileOp::short).collect();
    assert_eq!(
        shorts,
        [
            "M src/main.rs",
            "A added.txt",
            "D gone.txt",
            "R x.txt -> y.txt"
        ]
    );
}

#[test]
fn unified_hunks_find_shifted_lines_and_keep_missing_newlines() {
    // The file gained two lines at the top since the diff was made.
    let d = workspace(&[("a.txt", "new1\nnew2\nalpha\nbeta\ngamma")]);
    d.patch("--- a.txt\n+++ a.txt\n@@ -2,2 +2,2 @@\n alpha\n-beta\n+BETA\n")
        .unwrap();
    assert_eq!(d.read("a.txt").unwrap(), "new1\nnew2\nalpha\nBETA\ngamma");
    d.patch(
        "--- a/a.txt\n+++ b/a.txt\n@@ -5 +5 @@\n-gamma\n\\ No newline at end of file\n+GAMMA\n",
    )
    .unwrap();
    assert_eq!(d.read("a.txt").unwrap(), "new1\nnew2\nalpha\nBETA\nGAMMA\n");
}

#[test]
fn a_context_mismatch_writes_nothing() {
    let files = [("src/main.rs", MAIN), ("keep.txt", "keep\n")];
    let d = workspace(&files);
    let before = d.snapshot();
    // The first file and the first hunk are fine; the second hunk is not.
    let error = d
        .patch(
            "*** Begin Patch
*** Add File: created/new.txt
+new
*** Delete File: keep.txt
*** Update File: src/main.rs
@@
-    println!(\"one\");
+    println!(\"ONE\");
@@ fn other() {
-    let y = 99;
+    let y = 100;
*** End Patch",
        )
        .unwrap_err();
    assert!(
        error
            .0
            .starts_with("src/main.rs: hunk 2 (@@ fn other() {): these lines were not found"),
        "{error}"
    );
    assert!(
        error.0.contains("\"    let y = 99;\"") && error.0.contains("nothing was changed"),
        "{error}"
    );
    assert_eq!(d.snapshot(), before);

    let error = d
        .patch("--- a/keep.txt\n+++ b/keep.txt\n@@ -1 +1 @@\n-kept\n+changed\n")
        .unwrap_err();
    assert!(error.0.contains("line 1 is \"keep\""), "{error}");
    assert_eq!(d.snapshot(), before);
}

#[test]
fn paths_outside_the_workspace_are_refused() {
    let outer = tempfile::tempdir().unwrap();
    std::fs::write(outer.path().join("secret.txt"), "secret\n").unwrap();
    let d = workspace(&[("a.txt", "a\n")]);
    std::os::unix::fs::symlink(outer.path(), d.dir.path().join("link")).unwrap();
    let before = d.snapshot();
    let name = outer.path().file_name().unwrap().to_str().unwrap();
    let escapes = [
        "*** Begin Patch\n*** Add File: ../escape.txt\n+x\n*** End Patch".to_string(),
        format!("*** Begin Patch\n*** Update File: ../{name}/secret.txt\n@@\n-secret\n+mine\n*** End Patch"),
        "*** Begin Patch\n*** Delete File: link/secret.txt\n*** End Patch".to_string(),
        "*** Begin Patch\n*** Add File: link/new.txt\n+x\n*** End Patch".to_string(),
        "*** Begin Patch\n*** Update File: a.txt\n*** Move to: ../moved.txt\n*** End Patch".to_string(),
        "--- /dev/null\n+++ b/../escape.txt\n@@ -0,0 +1 @@\n+x\n".to_string(),
    ];
    for patch in &escapes {
        let error = d.patch(patch).unwrap_err();
        assert!(
            error.0.contains("outside the workspace"),
            "{patch}: {error}"
        );
    }
    assert_eq!(d.snapshot(), before);
    assert_eq!(
        std::fs::read_to_string(outer.path().join("secret.txt")).unwrap(),
        "secret\n"
    );
    assert!(!outer.path().join("new.txt").exists());
}

#[test]
fn non_utf8_and_other_bad_targets_are_refused() {
    let d = workspace(&[("a.txt", "a\n"), ("dir/f.txt", "f\n")]);
    std::fs::write(d.dir.path().join("bin.dat"), [0xff, 0xfe, 0x00, 0x41]).unwrap();
    let before = d.snapshot();
    let cases = [
        ("*** Begin Patch\n*** Update File: bin.dat\n@@\n-A\n+B\n*** End Patch", "bin.dat is not a UTF-8 text file"),
        ("*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch", "a.txt already exists"),
        ("*** Begin Patch\n*** Delete File: nope.txt\n*** End Patch", "nope.txt: no such file"),
        ("*** Begin Patch\n*** Delete File: dir\n*** End Patch", "dir is not a file"),
        ("*** Begin Patch\n*** Add File: a.txt/b.txt\n+x\n*** End Patch", "a.txt is a file"),
        (
            "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n*** Update File: ./a.txt\n@@\n-a\n+c\n*** End Patch",
            "the patch already changes this file (as a.txt)",
        ),
        ("*** Begin Patch\n*** Update File: a.txt\n*** Move to: dir/f.txt\n*** End Patch", "dir/f.txt already exists"),
    ];
    for (patch, expected) in cases {
        let error = d.patch(patch).unwrap_err();
        assert!(error.0.contains(expected), "{patch}: {error}");
    }
    assert_eq!(d.snapshot(), before);
}

#[test]
fn malformed_patches_are_explained() {
    let cases = [
        ("just some text", "neither"),
        (
            "*** Begin Patch\n*** Add File: a\n+x\n",
            "no \"*** End Patch\"",
        ),
        (
            "*** Begin Patch\n*** Frobnicate: a\n*** End Patch",
            "\"*** Frobnicate: a\"",
        ),
        (
            "*** Begin Patch\n*** Add File: a\nno plus\n*** End Patch",
            "must start with '+'",
        ),
        (
            "*** Begin Patch\n*** Update File: a\n*** End Patch",
            "has no hunks",
        ),
        (
            "*** Begin Patch\n*** Update File: a\n@@\n~x\n*** End Patch",
            "\"~x\"",
        ),
        ("*** Begin Patch\n*** End Patch", "changes no file"),
        ("@@ -1 +1 @@\n-a\n+b\n", "before any"),
        (
            "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\noops\n b\n",
            "hunk lines start with",
        ),
        (
            "--- /dev/null\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
            "may only add",
        ),
        (
            "diff --git a/x b/x\nBinary files a/x and b/x differ\n",
            "binary",
        ),
    ];
    for (patch, expected) in cases {
        let error = parse::parse(patch).unwrap_err();
        assert!(error.contains(expected), "{patch:?}: {error}");
    }
}

#[test]
fn lenient_where_models_slip() {
    // Blank context lines without their space, a blank line between
    // sections, `@@ -l,n +l,n @@` inside the envelope, wrong counts and a
    // trailing remark after a complete unified hunk.
    let d = workspace(&[("a.txt", "one\n\ntwo\nthree\n"), ("b.txt", "x\ny\n")]);
    d.patch(
        "*** Begin Patch\n*** Update File: a.txt\n@@ -1,3 +1,3 @@\n one\n\n-two\n+TWO\n\n*** Update File: b.txt\n@@\n-y\n+Y\n*** End Patch\n",
    )
    .unwrap();
    assert_eq!(d.read("a.txt").unwrap(), "one\n\nTWO\nthree\n");
    assert_eq!(d.read("b.txt").unwrap(), "x\nY\n");
    d.patch("Here is the fix:\n--- a/b.txt\n+++ b/b.txt\n@@ -1,9 +1,9 @@\n x\n-Y\n+why\n")
        .unwrap();
    assert_eq!(d.read("b.txt").unwrap(), "x\nwhy\n");
    d.patch("--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n x\n-why\n+y\n\nThat should do it.\n")
        .unwrap();
    assert_eq!(d.read("b.txt").unwrap(), "x\ny\n");
}

#[test]
fn describe_lists_the_files() {
    let args = json!({"patch": "*** Begin Patch\n*** Add File: a\n+x\n*** Update File: b\n*** Move to: c\n*** Delete File: d\n*** End Patch"});
    assert_eq!(describe(&args).unwrap(), ["A a", "R b -> c", "D d"]);
    assert!(describe(&json!({})).unwrap_err().contains("patch"));
}
