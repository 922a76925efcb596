//! The workspace views over a real socket, on real git repositories and
//! plain directories in temp dirs: browse and file (thread-bound and the
//! composer's), status, and the thread's diff against HEAD. Every path is
//! confined (`..`, absolute paths, links leading outside, dangling ones),
//! binaries and link targets are never sent, big answers are cut.

use crate::common::{self, git};

use common::{client::Api, Harness, Reply};
use serde_json::{json, Value};
use std::{os::unix::fs::symlink, path::Path};

fn write(dir: &Path, name: &str, contents: impl AsRef<[u8]>) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
}

/// A temp dir holding `ws/` (the workspace) and `outside/secret.txt`.
struct Place {
    dir: tempfile::TempDir,
}

const SECRET: &str = "TOP SECRET outside the workspace";

impl Place {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("ws")).unwrap();
        write(&dir.path().join("outside"), "secret.txt", SECRET);
        Place { dir }
    }

    fn ws(&self) -> std::path::PathBuf {
        self.dir.path().join("ws").canonicalize().unwrap()
    }

    fn outside(&self) -> std::path::PathBuf {
        self.dir.path().join("outside").canonicalize().unwrap()
    }

    fn ws_str(&self) -> String {
        self.ws().display().to_string()
    }
}

async fn get(api: &Api, path: &str, query: &[(&str, &str)]) -> Reply {
    api.send(api.http().get(api.url(path)).query(query)).await
}

async fn ok(api: &Api, path: &str, query: &[(&str, &str)]) -> Value {
    let reply = get(api, path, query).await;
    assert_eq!(reply.status, 200, "{path} {query:?}: {}", reply.text());
    reply.json()
}

/// A refusal: its status, and that it carries nothing from outside.
async fn refused(api: &Api, path: &str, query: &[(&str, &str)]) -> (u16, String) {
    let reply = get(api, path, query).await;
    assert!(!reply.text().contains("TOP SECRET"), "{}", reply.text());
    reply.error()
}

async fn thread_in(api: &Api, workspace: &str) -> String {
    api.create_thread(json!({ "workspace": workspace }))
        .await
        .id
}

fn names(listing: &Value) -> Vec<(String, String)> {
    listing["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_string(),
                e["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_thread_browses_and_reads_its_own_repository() {
    let place = Place::new();
    let ws = place.ws();
    git(&ws, &["init", "-q", "-b", "main"]);
    write(&ws, "src/main.rs", "fn main() {}\n");
    write(&ws, ".gitignore", "secret.txt\nbuild/\n");
    write(&ws, "secret.txt", "ignored");
    write(&ws, "build/out.o", "ignored");
    write(&ws, "src/.gitignore", "generated.rs\n");
    write(&ws, "src/generated.rs", "ignored too");
    write(&ws, "README.md", "# hi\n");
    write(&ws, "bin.dat", b"\x00\x01\x02binary");
    write(&ws, "latin1.txt", b"caf\xe9\n");
    write(&ws, "big.txt", "x".repeat(600 * 1024));
    symlink("src/main.rs", ws.join("link_in")).unwrap();
    let h = Harness::app_server().await;
    let api = h.api().await;
    let id = thread_in(&api, &place.ws_str()).await;
    let browse = format!("/v1/threads/{id}/workspace/browse");
    let file = format!("/v1/threads/{id}/workspace/file");

    let root = ok(&api, &browse, &[]).await;
    assert_eq!(root["workspace"], place.ws_str());
    assert_eq!(root["path"], ".");
    assert_eq!(root["truncated"], false);
    let expected: Vec<(String, String)> = [
        ("src", "dir"),
        (".gitignore", "file"),
        ("README.md", "file"),
        ("big.txt", "file"),
        ("bin.dat", "file"),
        ("latin1.txt", "file"),
        ("link_in", "symlink"),
    ]
    .iter()
    .map(|(n, k)| (n.to_string(), k.to_string()))
    .collect();
    assert_eq!(names(&root), expected, "ignored files and .git are hidden");
    let readme = &root["entries"][2];
    assert_eq!(
        (&readme["path"], &readme["size"]),
        (&json!("README.md"), &json!(5))
    );
    assert_eq!(
        root["entries"][6]["size"],
        Value::Null,
        "a link has no size"
    );

    let src = ok(&api, &browse, &[("path", "src")]).await;
    let entries = names(&src);
    assert_eq!(
        entries,
        [
            (".gitignore".into(), "file".into()),
            ("main.rs".into(), "file".into())
        ],
        "a nested .gitignore counts"
    );
    assert_eq!(src["entries"][1]["path"], "src/main.rs");

    let main = ok(&api, &file, &[("path", "src/main.rs")]).await;
    assert_eq!(main["content"], "fn main() {}\n");
    assert_eq!(main["language_hint"], "rust");
    assert_eq!(
        (main["binary"].clone(), main["truncated"].clone()),
        (json!(false), json!(false))
    );
    assert_eq!(main["size"], 13);
    // A link inside to a file inside stands for its target.
    let through = ok(&api, &file, &[("path", "link_in")]).await;
    assert_eq!(
        (&through["path"], &through["content"]),
        (&json!("src/main.rs"), &main["content"])
    );
    // An absolute path inside the workspace is the same file.
    let absolute = ws.join("src/main.rs").display().to_string();
    assert_eq!(
        ok(&api, &file, &[("path", &absolute)]).await["content"],
        main["content"]
    );

    for binary in ["bin.dat", "latin1.txt"] {
        let reply = ok(&api, &file, &[("path", binary)]).await;
        assert_eq!(reply["binary"], true, "{binary}");
        assert_eq!(reply["content"], Value::Null, "{binary}");
    }
    let big = ok(&api, &file, &[("path", "big.txt")]).await;
    assert_eq!(big["truncated"], true);
    assert_eq!(big["size"], 600 * 1024);
    assert_eq!(big["content"].as_str().unwrap().len(), 512 * 1024);

    // Wrong kinds are 409, missing paths 404.
    assert_eq!(refused(&api, &file, &[("path", "src")]).await.0, 409);
    assert_eq!(
        refused(&api, &browse, &[("path", "README.md")]).await.0,
        409
    );
    assert_eq!(refused(&api, &file, &[("path", "nope.txt")]).await.0, 404);
    assert_eq!(refused(&api, &browse, &[("path", "nope")]).await.0, 404);
    // The query names nothing but `path`: no other directory can be given.
    let other = place.outside().display().to_string();
    let (status, _) = refused(&api, &browse, &[("workspace", &other)]).await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn paths_leading_outside_are_refused_and_do_not_tell_what_is_there() {
    let place = Place::new();
    let ws = place.ws();
    let outside = place.outside();
    write(&ws, "inside.txt", "inside\n");
    symlink(outside.join("secret.txt"), ws.join("out_file")).unwrap();
    symlink(&outside, ws.join("out_dir")).unwrap();
    symlink(outside.join("nothing"), ws.join("dangling_out")).unwrap();
    symlink("no-such-file", ws.join("dangling_in")).unwrap();
    symlink("../outside/secret.txt", ws.join("relative_out")).unwrap();
    let h = Harness::app_server().await;
    let api = h.api().await;
    let id = thread_in(&api, &place.ws_str()).await;
    let file = format!("/v1/threads/{id}/workspace/file");
    let browse = format!("/v1/threads/{id}/workspace/browse");

    let secret = outside.join("secret.txt").display().to_string();
    let missing = outside.join("nothing").display().to_string();
    let mut messages = Vec::new();
    for path in [
        "../outside/secret.txt",
        "../outside/nothing",
        "../../../../../../etc/passwd",
        &secret,
        &missing,
        "/etc/passwd",
        "out_file",
        "out_dir/secret.txt",
        "out_dir/nothing",
        "dangling_out",
        "relative_out",
        "inside.txt/../../outside/secret.txt",
    ] {
        let (status, message) = refused(&api, &file, &[("path", path)]).await;
        assert_eq!(status, 403, "{path}: {message}");
        assert!(
            message.contains("outside the workspace"),
            "{path}: {message}"
        );
        messages.push(message.replace(path, "<path>"));
    }
    // An existing and a missing file outside are refused in the same words.
    assert!(messages.windows(2).all(|w| w[0] == w[1]), "{messages:#?}");
    for path in ["..", "out_dir", "/", "/etc"] {
        assert_eq!(
            refused(&api, &browse, &[("path", path)]).await.0,
            403,
            "{path}"
        );
    }
    // A dangling link inside is simply missing.
    assert_eq!(
        refused(&api, &file, &[("path", "dangling_in")]).await.0,
        404
    );
    // The listing shows the links as links, never what they point at.
    let listing = ok(&api, &browse, &[]).await;
    let text = listing.to_string();
    assert!(!text.contains("secret.txt") && !text.contains(&outside.display().to_string()));
    assert_eq!(
        names(&listing)
            .iter()
            .filter(|(_, kind)| kind == "symlink")
            .count(),
        5
    );
}

#[tokio::test]
async fn the_diff_shows_tracked_and_untracked_changes_against_head() {
    let place = Place::new();
    let ws = place.ws();
    git(&ws, &["init", "-q", "-b", "main"]);
    let lines: String = (1..=20).map(|n| format!("line {n}\n")).collect();
    write(&ws, "a.txt", &lines);
    write(&ws, "gone.txt", "bye\n");
    write(&ws, "old_name.txt", "a file that moves\nwith two lines\n");
    write(&ws, "image.bin", b"\x00PNG\x01");
    write(&ws, ".gitignore", "ignored.log\n");
    symlink("a.txt", ws.join("tracked_link")).unwrap();
    git(&ws, &["add", "."]);
    git(&ws, &["commit", "-q", "-m", "init"]);
    let head = git(&ws, &["rev-parse", "HEAD"]).trim().to_string();

    write(&ws, "a.txt", lines.replace("line 10\n", "line ten\n"));
    std::fs::remove_file(ws.join("gone.txt")).unwrap();
    git(&ws, &["mv", "old_name.txt", "new_name.txt"]);
    write(&ws, "staged.txt", "staged\n");
    git(&ws, &["add", "staged.txt"]);
    write(&ws, "untracked.txt", "new\nfile\n");
    write(&ws, "image.bin", b"\x00PNG\x02");
    write(&ws, "ignored.log", "not shown");
    symlink(
        place.outside().join("secret.txt"),
        ws.join("untracked_link"),
    )
    .unwrap();
    std::fs::remove_file(ws.join("tracked_link")).unwrap();
    symlink("staged.txt", ws.join("tracked_link")).unwrap();

    let h = Harness::app_server().await;
    let api = h.api().await;
    let id = thread_in(&api, &place.ws_str()).await;
    let reply = get(&api, &format!("/v1/threads/{id}/workspace/diff"), &[]).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert!(!reply.text().contains("TOP SECRET"));
    let diff = reply.json();
    assert_eq!(diff["head"], head);
    assert_eq!(diff["workspace"], place.ws_str());
    assert_eq!(diff["truncated"], false);
    assert_eq!(diff["limits"]["max_files"], 300);
    let files = diff["files"].as_array().unwrap();
    let by_path = |path: &str| {
        files
            .iter()
            .find(|f| f["path"] == path)
            .unwrap_or_else(|| panic!("{path} in {files:#?}"))
            .clone()
    };
    let statuses: Vec<(&str, &str)> = files
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        statuses,
        [
            ("a.txt", "modified"),
            ("gone.txt", "deleted"),
            ("image.bin", "modified"),
            ("new_name.txt", "renamed"),
            ("staged.txt", "added"),
            ("tracked_link", "modified"),
            ("untracked.txt", "untracked"),
            ("untracked_link", "untracked"),
        ],
        "the ignored file is not listed"
    );

    let a = by_path("a.txt");
    let hunk = &a["hunks"][0];
    assert_eq!(hunk["header"], "@@ -7,7 +7,7 @@");
    let changed: Vec<Value> = hunk["lines"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["kind"] != "context")
        .cloned()
        .collect();
    assert_eq!(
        changed,
        [
            json!({"kind": "delete", "old_line": 10, "new_line": null, "text": "line 10"}),
            json!({"kind": "add", "old_line": null, "new_line": 10, "text": "line ten"}),
        ]
    );
    assert_eq!(
        hunk["lines"][0],
        json!({"kind": "context", "old_line": 7, "new_line": 7, "text": "line 7"})
    );

    let gone = by_path("gone.txt");
    assert_eq!(gone["hunks"][0]["lines"][0]["kind"], "delete");
    assert_eq!(gone["hunks"][0]["header"], "@@ -1,1 +0,0 @@");
    let renamed = by_path("new_name.txt");
    assert_eq!(renamed["old_path"], "old_name.txt");
    assert_eq!(
        renamed["hunks"],
        json!([]),
        "an unchanged rename has no hunks"
    );
    let untracked = by_path("untracked.txt");
    assert_eq!(untracked["hunks"][0]["header"], "@@ -0,0 +1,2 @@");
    assert_eq!(untracked["hunks"][0]["lines"][1]["text"], "file");
    assert_eq!(
        by_path("staged.txt")["hunks"][0]["lines"][0]["text"],
        "staged"
    );
    let binary = by_path("image.bin");
    assert_eq!(
        (&binary["binary"], &binary["hunks"]),
        (&json!(true), &json!([]))
    );
    for link in ["untracked_link", "tracked_link"] {
        let link = by_path(link);
        assert_eq!(
            (&link["symlink"], &link["hunks"]),
            (&json!(true), &json!([]))
        );
    }
}

#[tokio::test]
async fn big_diffs_are_cut_and_say_so() {
    let place = Place::new();
    let ws = place.ws();
    git(&ws, &["init", "-q", "-b", "main"]);
    write(&ws, "seed.txt", "seed\n");
    git(&ws, &["add", "."]);
    git(&ws, &["commit", "-q", "-m", "init"]);
    for n in 0..310 {
        write(&ws, &format!("many/f{n:03}.txt"), "x\n");
    }
    let long: String = (0..6000).map(|n| format!("{n}\n")).collect();
    write(&ws, "a_long.txt", long);
    write(&ws, "a_huge.txt", "y\n".repeat(400 * 1024));
    let h = Harness::app_server().await;
    let api = h.api().await;
    let id = thread_in(&api, &place.ws_str()).await;
    let diff = ok(&api, &format!("/v1/threads/{id}/workspace/diff"), &[]).await;
    assert_eq!(diff["truncated"], true);
    let files = diff["files"].as_array().unwrap();
    assert_eq!(files.len(), 300);
    let long = &files[1];
    assert_eq!(long["path"], "a_long.txt");
    assert_eq!(long["truncated"], true);
    let lines: usize = long["hunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["lines"].as_array().unwrap().len())
        .sum();
    assert_eq!(lines, 5000);
    let huge = &files[0];
    assert_eq!(huge["path"], "a_huge.txt");
    assert_eq!(
        (&huge["truncated"], &huge["hunks"]),
        (&json!(true), &json!([]))
    );
    assert_eq!(files[2]["truncated"], false);
}

#[tokio::test]
async fn status_reports_branch_head_upstream_and_counts() {
    let place = Place::new();
    let origin = place.dir.path().join("origin");
    std::fs::create_dir(&origin).unwrap();
    git(&origin, &["init", "-q", "-b", "main"]);
    write(&origin, "a.txt", "a\n");
    write(&origin, "b.txt", "b\n");
    git(&origin, &["add", "."]);
    git(&origin, &["commit", "-q", "-m", "init"]);
    let ws = place.ws();
    std::fs::remove_dir(&ws).unwrap();
    git(place.dir.path(), &["clone", "-q", "origin", "ws"]);
    write(&ws, "c.txt", "c\n");
    git(&ws, &["add", "c.txt"]);
    git(&ws, &["commit", "-q", "-m", "ahead"]);
    write(&ws, "a.txt", "changed\n");
    write(&ws, "b.txt", "staged\n");
    git(&ws, &["add", "b.txt"]);
    write(&ws, "new.txt", "untracked\n");
    let head = git(&ws, &["rev-parse", "HEAD"]).trim().to_string();

    let h = Harness::app_server().await;
    let api = h.api().await;
    thread_in(&api, &place.ws_str()).await;
    let status = ok(
        &api,
        "/v1/workspace/status",
        &[("workspace", &place.ws_str())],
    )
    .await;
    assert_eq!(
        status,
        json!({
            "workspace": place.ws_str(),
            "is_git": true,
            "branch": "main",
            "head": head,
            "dirty": true,
            "upstream": "origin/main",
            "ahead": 1,
            "behind": 0,
            "counts": {"staged": 1, "unstaged": 1, "untracked": 1, "conflicted": 0},
        })
    );
    // Without a workspace: the runtime's default one.
    let default = ok(&api, "/v1/workspace/status", &[]).await;
    let cwd = std::env::current_dir().unwrap().canonicalize().unwrap();
    assert_eq!(default["workspace"], cwd.display().to_string());
}

#[tokio::test]
async fn a_plain_directory_is_browsed_but_has_no_git_facts_or_diff() {
    let place = Place::new();
    let ws = place.ws();
    write(&ws, "notes.md", "# notes\n");
    write(&ws, ".gitignore", "notes.md\n");
    let h = Harness::app_server().await;
    let api = h.api().await;
    let id = thread_in(&api, &place.ws_str()).await;
    let listing = ok(&api, &format!("/v1/threads/{id}/workspace/browse"), &[]).await;
    assert_eq!(
        names(&listing),
        [
            (".gitignore".into(), "file".into()),
            ("notes.md".into(), "file".into())
        ],
        "outside a repository .gitignore means nothing"
    );
    let status = ok(
        &api,
        "/v1/workspace/status",
        &[("workspace", &place.ws_str())],
    )
    .await;
    assert_eq!(status["is_git"], false);
    assert_eq!(status["branch"], Value::Null);
    assert_eq!(status["counts"], Value::Null);
    let (code, message) = refused(&api, &format!("/v1/threads/{id}/workspace/diff"), &[]).await;
    assert_eq!(code, 409);
    assert!(message.contains("not a git repository"), "{message}");
}

#[tokio::test]
async fn the_composer_reads_only_workspaces_the_runtime_knows() {
    let place = Place::new();
    write(&place.ws(), "hello.txt", "hello\n");
    let h = Harness::app_server().await;
    let api = h.api().await;
    let ws = place.ws_str();
    let query = |workspace: &str, path: &str| {
        vec![
            ("workspace".to_string(), workspace.to_string()),
            ("path".to_string(), path.to_string()),
        ]
    };
    for route in [
        "/v1/workspace/browse",
        "/v1/workspace/file",
        "/v1/workspace/status",
    ] {
        for workspace in [ws.as_str(), "/", ".", "", "/nonexistent/dir"] {
            let q = query(workspace, "hello.txt");
            let q: Vec<(&str, &str)> = q.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            let (status, message) = refused(
                &api,
                route,
                &q[..if route.ends_with("status") { 1 } else { 2 }],
            )
            .await;
            assert_eq!(status, 403, "{route} {workspace}: {message}");
            assert!(
                message.contains("not a workspace this runtime knows"),
                "{message}"
            );
        }
    }
    // Known once a thread names it (as given or through a link to it).
    thread_in(&api, &ws).await;
    let file = ok(
        &api,
        "/v1/workspace/file",
        &[("workspace", &ws), ("path", "hello.txt")],
    )
    .await;
    assert_eq!(file["content"], "hello\n");
    let alias = place.dir.path().join("alias");
    symlink(place.ws(), &alias).unwrap();
    let alias = alias.display().to_string();
    let listing = ok(&api, "/v1/workspace/browse", &[("workspace", &alias)]).await;
    assert_eq!(listing["workspace"], ws);
    // Confined like the thread's views.
    let (status, _) = refused(
        &api,
        "/v1/workspace/file",
        &[("workspace", &ws), ("path", "../outside/secret.txt")],
    )
    .await;
    assert_eq!(status, 403);
    // The default workspace is known without a thread.
    let cwd = std::env::current_dir().unwrap().display().to_string();
    let listing = ok(&api, "/v1/workspace/browse", &[("workspace", &cwd)]).await;
    assert!(names(&listing).iter().any(|(n, _)| n == "Cargo.toml"));
    // A known workspace that is gone is a conflict.
    std::fs::remove_dir_all(place.ws()).unwrap();
    let (status, _) = refused(&api, "/v1/workspace/browse", &[("workspace", &ws)]).await;
    assert_eq!(status, 409);
}

#[tokio::test]
async fn unknown_threads_and_gone_workspaces() {
    let place = Place::new();
    let h = Harness::app_server().await;
    let api = h.api().await;
    for view in ["browse", "file", "diff"] {
        let unknown = format!("/v1/threads/thr_0123456789abcdef/workspace/{view}");
        assert_eq!(refused(&api, &unknown, &[]).await.0, 404, "{view}");
        let malformed = format!("/v1/threads/nope/workspace/{view}");
        assert_eq!(refused(&api, &malformed, &[]).await.0, 400, "{view}");
    }
    let id = thread_in(&api, &place.ws_str()).await;
    std::fs::remove_dir_all(place.ws()).unwrap();
    for view in ["browse", "file", "diff"] {
        let path = format!("/v1/threads/{id}/workspace/{view}");
        let (status, message) =
            refused(&api, &path, &[("path", "x")][..usize::from(view != "diff")]).await;
        assert_eq!(status, 409, "{view}: {message}");
    }
}
