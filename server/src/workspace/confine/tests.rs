//! Resolution (dangling links included) and the no-follow operations, on
//! real files: a workspace `ws` and a directory `out` beside it.

use super::nofollow::Walk;
use super::*;
use std::os::unix::fs::symlink;

struct Dirs {
    ws: tempfile::TempDir,
    out: tempfile::TempDir,
}

impl Dirs {
    fn new() -> Self {
        let (ws, out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        std::fs::write(ws.path().join("real.txt"), "real\n").unwrap();
        std::fs::create_dir(ws.path().join("sub")).unwrap();
        std::fs::write(out.path().join("secret.txt"), "secret\n").unwrap();
        Self { ws, out }
    }

    fn workspace(&self, trusted: bool) -> Workspace {
        Workspace::new(self.ws.path(), trusted).unwrap()
    }

    fn link(&self, name: &str, target: impl AsRef<Path>) {
        symlink(target, self.ws.path().join(name)).unwrap();
    }

    fn out(&self, name: &str) -> PathBuf {
        self.out.path().join(name)
    }

    /// Every name under `out`, to show nothing was created there.
    fn outside(&self) -> Vec<PathBuf> {
        let mut names: Vec<PathBuf> = std::fs::read_dir(self.out.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        names.sort();
        names
    }

    fn secret(&self) -> String {
        std::fs::read_to_string(self.out("secret.txt")).unwrap()
    }
}

fn refused(result: Result<Confined, ConfineError>) -> String {
    match result {
        Ok(path) => panic!("allowed: {}", path.display()),
        Err(e) => e.0,
    }
}

#[test]
fn links_leading_outside_are_refused_even_when_dangling() {
    let d = Dirs::new();
    let out_name = d.out.path().file_name().unwrap().to_str().unwrap();
    d.link("notes.md", d.out("absent.md"));
    d.link("secret.md", d.out("secret.txt"));
    d.link("linkdir", d.out.path());
    d.link("deaddir", d.out("missing"));
    d.link("relative.md", format!("../{out_name}/absent.md"));
    d.link("hop1", "hop2"); // inside, then out
    d.link("hop2", d.out("absent.md"));
    d.link("sub/up", "../notes.md");
    let w = d.workspace(false);
    for asked in [
        "notes.md",
        "secret.md",
        "linkdir",
        "linkdir/x.txt",
        "linkdir/new/x.txt",
        "deaddir/x.txt",
        "relative.md",
        "hop1",
        "sub/up",
        "./sub/../notes.md",
    ] {
        let error = refused(w.writable(asked));
        assert!(error.contains("outside the workspace"), "{asked}: {error}");
        let error = refused(w.existing(asked));
        assert!(error.contains("outside the workspace"), "{asked}: {error}");
    }
    // Absolute paths are resolved the same way.
    let absolute = d.ws.path().join("notes.md");
    assert!(refused(w.writable(absolute.to_str().unwrap())).contains("outside"));
}

#[test]
fn links_inside_resolve_to_their_target() {
    let d = Dirs::new();
    d.link("alias.txt", "real.txt");
    d.link("fresh.txt", "sub/later.txt"); // dangling, inside
    d.link("subdir", d.ws.path().join("sub"));
    let w = d.workspace(false);
    let root = w.root().to_path_buf();
    assert_eq!(*w.writable("alias.txt").unwrap(), *root.join("real.txt"));
    assert_eq!(*w.existing("alias.txt").unwrap(), *root.join("real.txt"));
    assert_eq!(
        *w.writable("fresh.txt").unwrap(),
        *root.join("sub/later.txt")
    );
    assert!(refused(w.existing("fresh.txt")).contains("no such file"));
    assert_eq!(
        *w.writable("subdir/a/b.txt").unwrap(),
        *root.join("sub/a/b.txt")
    );
    assert_eq!(
        *w.existing("sub/../real.txt").unwrap(),
        *root.join("real.txt")
    );
    assert_eq!(*w.existing("").unwrap(), *root);
}

#[test]
fn dot_dot_loops_and_trust_mode() {
    let d = Dirs::new();
    d.link("loop1", "loop2");
    d.link("loop2", "loop1");
    d.link("notes.md", d.out("absent.md"));
    let w = d.workspace(false);
    // Writes refuse `..` outright, as before; reads resolve it.
    assert!(refused(w.writable("sub/../real.txt")).contains("outside"));
    assert!(refused(w.writable("../x.txt")).contains("outside"));
    assert!(refused(w.existing("missing/../real.txt")).contains("no such file"));
    assert!(refused(w.existing("real.txt/x")).contains("no such file"));
    assert!(refused(w.writable("loop1")).contains("too many levels"));
    // Trusted: outside is allowed, still resolved.
    let t = d.workspace(true);
    let target = d.out.path().canonicalize().unwrap().join("absent.md");
    assert_eq!(*t.writable("notes.md").unwrap(), *target);
    assert!(t.writable("../x.txt").is_ok());
}

/// The operations meet a link that appeared after the check: the final
/// component or a directory on the way, dangling or not. Both walks.
#[test]
fn a_link_swapped_in_after_the_check_is_not_followed() {
    if cfg!(target_os = "linux") && Path::new("/proc/self/fd").is_dir() {
        assert_eq!(Walk::detect(), Walk::Held);
    }
    let walks = [Walk::detect(), Walk::ByPath];
    for walk in walks {
        let d = Dirs::new();
        std::fs::write(d.ws.path().join("sub/keep.txt"), "keep\n").unwrap();
        let w = d.workspace(false);
        let checked = [
            w.writable("new.txt").unwrap(),
            w.writable("real.txt").unwrap(),
            w.writable("sub/keep.txt").unwrap(),
            w.writable("sub/deeper/x.txt").unwrap(),
        ];
        // Now the tree changes under the checked paths.
        d.link("new.txt", d.out("created.txt"));
        std::fs::remove_file(d.ws.path().join("real.txt")).unwrap();
        d.link("real.txt", d.out("secret.txt"));
        std::fs::rename(d.ws.path().join("sub"), d.ws.path().join("moved")).unwrap();
        std::fs::write(d.out("keep.txt"), "outside\n").unwrap();
        d.link("sub", d.out.path());
        let before = d.outside();

        for path in &checked {
            let error = walk.write(path, b"pwned").unwrap_err();
            assert!(
                error.to_string().contains("symbolic link"),
                "{walk:?} {}: {error}",
                path.display()
            );
            assert!(walk.open_read(path).is_err(), "{walk:?} read");
        }
        let error = walk.create_parents(&checked[3], &mut Vec::new());
        assert!(error.is_err(), "{walk:?} create_parents");
        assert!(walk.remove(&checked[2], false).is_err(), "{walk:?} remove");

        assert_eq!(d.outside(), before, "{walk:?}: nothing created outside");
        assert_eq!(d.secret(), "secret\n");
        assert_eq!(
            std::fs::read_to_string(d.out("keep.txt")).unwrap(),
            "outside\n"
        );
    }
}

#[test]
fn operations_work_on_checked_paths() {
    for walk in [Walk::detect(), Walk::ByPath] {
        let d = Dirs::new();
        let w = d.workspace(false);
        let path = w.writable("a/b/c.txt").unwrap();
        let mut created = Vec::new();
        walk.create_parents(&path, &mut created).unwrap();
        let root = w.root();
        assert_eq!(created, vec![root.join("a"), root.join("a/b")]);
        walk.write(&path, b"one\n").unwrap();
        walk.write(&path, b"2\n").unwrap(); // replaced, not appended
        let mut text = String::new();
        std::io::Read::read_to_string(&mut walk.open_read(&path).unwrap(), &mut text).unwrap();
        assert_eq!(text, "2\n");
        walk.remove(&path, false).unwrap();
        walk.remove(&w.existing("a/b").unwrap(), true).unwrap();
        assert!(!root.join("a/b").exists() && root.join("a").is_dir());
    }
}

#[test]
fn fifos_do_not_hang_a_write() {
    let d = Dirs::new();
    let status = std::process::Command::new("mkfifo")
        .arg(d.ws.path().join("pipe"))
        .status();
    if !status.is_ok_and(|s| s.success()) {
        return; // no mkfifo here
    }
    let w = d.workspace(false);
    assert!(w.writable("pipe").unwrap().write(b"x").is_err());
}
