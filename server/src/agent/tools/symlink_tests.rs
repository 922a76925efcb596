//! Every file tool against symlinks in the workspace: links leading outside
//! (dangling or not, to files or directories) are refused and nothing
//! outside changes; links inside stand for their target.

use super::*;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

struct Fixture {
    ws: tempfile::TempDir,
    out: tempfile::TempDir,
    workspace: Workspace,
}

fn fixture() -> Fixture {
    let (ws, out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (w, o) = (ws.path(), out.path());
    std::fs::write(w.join("real.txt"), "real\n").unwrap();
    std::fs::write(o.join("secret.txt"), "secret\n").unwrap();
    let links: [(&str, PathBuf); 6] = [
        ("dangling.md", o.join("absent.md")),
        ("secret.md", o.join("secret.txt")),
        ("linkdir", o.to_path_buf()),
        ("deaddir", o.join("missing")),
        ("alias.txt", "real.txt".into()),
        ("fresh.txt", "made.txt".into()), // dangling, inside
    ];
    for (name, target) in links {
        symlink(target, w.join(name)).unwrap();
    }
    let workspace = Workspace::new(w, false).unwrap();
    Fixture { ws, out, workspace }
}

impl Fixture {
    fn run(&self, tool: &str, args: Value) -> Result<ToolOutput, ToolError> {
        let w = &self.workspace;
        match tool {
            "read_file" => read::read_file(w, &args).map(ToolOutput::from),
            "list_dir" => read::list_dir(w, &args).map(ToolOutput::from),
            "grep_files" => search::grep_files(w, &args).map(ToolOutput::from),
            "write_file" => write::write_file(w, &args),
            "edit_file" => write::edit_file(w, &args),
            _ => patch::apply_patch(w, &args),
        }
    }

    /// Every path and text under both directories, links as their target.
    fn tree(&self) -> Vec<(PathBuf, String)> {
        let mut all = Vec::new();
        let mut stack = vec![self.ws.path().to_path_buf(), self.out.path().to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                let meta = std::fs::symlink_metadata(&path).unwrap();
                let shown = if meta.file_type().is_symlink() {
                    format!("-> {}", std::fs::read_link(&path).unwrap().display())
                } else if meta.is_dir() {
                    stack.push(path.clone());
                    "/".into()
                } else {
                    std::fs::read_to_string(&path).unwrap()
                };
                all.push((path, shown));
            }
        }
        all.sort();
        all
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.ws.path().join(name)).unwrap()
    }
}

fn add(path: &str) -> Value {
    json!({"patch": format!("*** Begin Patch\n*** Add File: {path}\n+x\n*** End Patch")})
}

fn update(path: &str) -> Value {
    json!({"patch": format!("*** Begin Patch\n*** Update File: {path}\n@@\n-secret\n+x\n*** End Patch")})
}

fn refused_all(f: &Fixture, calls: &[(&str, Value)]) {
    let before = f.tree();
    for (tool, args) in calls {
        let error = f.run(tool, args.clone()).unwrap_err();
        assert!(
            error.0.contains("outside the workspace"),
            "{tool} {args}: {error}"
        );
        assert!(!error.0.contains("secret\n"), "{tool}: {error}");
    }
    assert_eq!(f.tree(), before, "nothing changed, inside or out");
    assert!(!f.out.path().join("absent.md").exists());
    assert!(!f.out.path().join("missing").exists());
}

#[test]
fn writes_through_links_leading_outside_are_refused() {
    let f = fixture();
    let write = |path: &str| json!({"path": path, "content": "pwned"});
    let edit = |path: &str| json!({"path": path, "old_string": "secret", "new_string": "x"});
    refused_all(
        &f,
        &[
            ("write_file", write("dangling.md")),
            ("write_file", write("secret.md")),
            ("write_file", write("linkdir/x.txt")),
            ("write_file", write("linkdir/new/x.txt")),
            ("write_file", write("deaddir/x.txt")),
            ("write_file", write("deaddir/new/x.txt")),
            ("edit_file", edit("dangling.md")),
            ("edit_file", edit("secret.md")),
            ("edit_file", edit("linkdir/secret.txt")),
            ("apply_patch", add("dangling.md")),
            ("apply_patch", add("linkdir/x.txt")),
            ("apply_patch", add("deaddir/new/x.txt")),
            ("apply_patch", update("dangling.md")),
            ("apply_patch", update("secret.md")),
            (
                "apply_patch",
                json!({"patch": "*** Begin Patch\n*** Update File: real.txt\n*** Move to: dangling.md\n*** End Patch"}),
            ),
            // The first file is fine; all or nothing still holds.
            (
                "apply_patch",
                json!({"patch": "*** Begin Patch\n*** Add File: ok.txt\n+x\n*** Delete File: secret.md\n*** End Patch"}),
            ),
        ],
    );
}

#[test]
fn reads_through_links_leading_outside_are_refused() {
    let f = fixture();
    refused_all(
        &f,
        &[
            ("read_file", json!({"path": "dangling.md"})),
            ("read_file", json!({"path": "secret.md"})),
            ("read_file", json!({"path": "linkdir/secret.txt"})),
            ("list_dir", json!({"path": "linkdir"})),
            ("list_dir", json!({"path": "deaddir"})),
            (
                "grep_files",
                json!({"pattern": "secret", "path": "deaddir"}),
            ),
        ],
    );
}

/// Links inside stand for their target: the target is changed in place
/// and the link stays a link.
#[test]
fn links_inside_write_their_target() {
    let f = fixture();
    let is_link = |name: &str| {
        std::fs::symlink_metadata(f.ws.path().join(name))
            .unwrap()
            .file_type()
            .is_symlink()
    };
    f.run(
        "write_file",
        json!({"path": "alias.txt", "content": "one\n"}),
    )
    .unwrap();
    assert_eq!(f.read("real.txt"), "one\n");
    f.run(
        "edit_file",
        json!({"path": "alias.txt", "old_string": "one", "new_string": "two"}),
    )
    .unwrap();
    assert_eq!(f.read("real.txt"), "two\n");
    let patch = "*** Begin Patch\n*** Update File: alias.txt\n@@\n-two\n+three\n*** End Patch";
    f.run("apply_patch", json!({ "patch": patch })).unwrap();
    assert_eq!(f.read("real.txt"), "three\n");
    let read = f.run("read_file", json!({"path": "alias.txt"})).unwrap();
    assert_eq!(read.text, "     1\tthree\n");
    assert!(is_link("alias.txt"));
    // A dangling link inside: write_file creates its target; an added
    // file must be a new name, so the patch refuses it.
    let error = f.run("apply_patch", add("fresh.txt")).unwrap_err();
    assert!(error.0.contains("fresh.txt already exists"), "{error}");
    f.run(
        "write_file",
        json!({"path": "fresh.txt", "content": "made\n"}),
    )
    .unwrap();
    assert_eq!(f.read("made.txt"), "made\n");
    assert!(is_link("fresh.txt"));
}

/// Trust mode keeps its meaning: outside is allowed, links included.
#[test]
fn trusted_threads_may_write_outside() {
    let f = fixture();
    let trusted = Workspace::new(f.ws.path(), true).unwrap();
    let args = json!({"path": "dangling.md", "content": "allowed\n"});
    write::write_file(&trusted, &args).unwrap();
    let written = Path::new(f.out.path()).join("absent.md");
    assert_eq!(std::fs::read_to_string(written).unwrap(), "allowed\n");
}
