//! Git in an untrusted repository: whatever programs its config, includes,
//! attributes, hooks or submodules name, reading git facts for the thread
//! list and the git_status / git_diff tools runs none of them, and still
//! reports the branch, head, dirtiness and diff.

use crate::common::{self, git};

use codewhale::{
    runtime::git::{GitCache, GitFacts},
    workspace::ViewError,
};
use common::agent::{setup_in_workspace, tool_call, Setup};
use mock_provider::Reply;
use serde_json::{json, Value};
use std::path::Path;

struct Repo {
    dir: tempfile::TempDir,
    /// Holds the "program" and the markers it leaves when run.
    bin: tempfile::TempDir,
    head: String,
}

impl Repo {
    /// A repository on `main` with `a.txt` committed as "hello", then
    /// changed to "jello" (same size, so git compares contents).
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let bin = tempfile::tempdir().unwrap();
        let program = bin.path().join("prog");
        std::fs::write(
            &program,
            format!(
                "#!/bin/sh\ntouch '{}/ran-'\"$1\"\nexit 1\n",
                bin.path().display()
            ),
        )
        .unwrap();
        executable(&program);
        git(dir.path(), &["init", "-q", "-b", "main"]);
        std::fs::write(dir.path().join("a.txt"), "hello\n").unwrap();
        std::fs::write(dir.path().join(".gitattributes"), "a.txt diff=evil\n").unwrap();
        git(dir.path(), &["add", "."]);
        git(dir.path(), &["commit", "-q", "-m", "init"]);
        let head = git(dir.path(), &["rev-parse", "HEAD"]);
        std::fs::write(dir.path().join("a.txt"), "jello\n").unwrap();
        Repo {
            dir,
            bin,
            head: head.trim()[..7].to_string(),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// A shell command line running the program, which leaves `ran-<name>`.
    fn program(&self, name: &str) -> String {
        format!("{}/prog {name}", self.bin.path().display())
    }

    fn config(&self, key: &str, value: &str) {
        git(self.path(), &["config", key, value]);
    }

    fn markers(&self) -> Vec<String> {
        std::fs::read_dir(self.bin.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with("ran-"))
            .collect()
    }
}

fn executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// One turn calling `tool`; returns its finished item.
async fn tool(s: &Setup, name: &str) -> Value {
    s.mock.push(tool_call(name, json!({})));
    s.mock.push(Reply::text(&["done"]));
    s.run("use git").await.last_item("tool_call")
}

/// Reads facts, git_status and git_diff; asserts that nothing ran and the
/// results are right. `diff_readable` is false when the diff needs an
/// object the repository does not have.
async fn check(repo: &Repo, diff_readable: bool) {
    let facts = GitCache::default()
        .facts(repo.path().to_str().unwrap())
        .await;
    let s = setup_in_workspace(repo.path(), json!({})).await;
    let status = tool(&s, "git_status").await;
    let diff = tool(&s, "git_diff").await;
    // The API's diff view: git's listing, cat-file for HEAD's side.
    let view = codewhale::workspace::diff::diff(repo.path(), facts.oid.clone()).await;
    assert_eq!(repo.markers(), Vec::<String>::new(), "a program ran");

    let GitFacts {
        branch,
        head,
        dirty,
        ..
    } = facts;
    assert_eq!(
        (branch, head, dirty),
        (Some("main".into()), Some(repo.head.clone()), Some(true))
    );
    if diff_readable {
        let view = view.expect("the diff view");
        let a = view
            .files
            .iter()
            .find(|f| f.path == "a.txt")
            .expect("a.txt");
        let changed: Vec<&str> = a
            .hunks
            .iter()
            .flat_map(|h| &h.lines)
            .map(|l| l.text.as_str())
            .collect();
        assert_eq!(changed, ["hello", "jello"], "{view:?}");
    } else {
        // git cannot compare without the object, and fetches nothing.
        let refused = view.expect_err("a diff without HEAD's object");
        assert!(matches!(refused, ViewError::Conflict(_)), "{refused:?}");
    }
    let text = status["detail"].as_str().unwrap();
    assert_eq!(status["status"], "completed", "{text}");
    assert!(
        text.contains("## main") && text.contains(" M a.txt"),
        "{text}"
    );
    let text = diff["detail"].as_str().unwrap();
    if diff_readable {
        assert_eq!(diff["status"], "completed", "{text}");
        assert!(text.contains("-hello\n+jello"), "{text}");
    } else {
        assert_eq!(diff["status"], "failed", "{text}");
    }
}

#[tokio::test]
async fn fsmonitor() {
    let repo = Repo::new();
    repo.config("core.fsmonitor", &repo.program("fsmonitor"));
    check(&repo, true).await;
}

#[tokio::test]
async fn external_diff() {
    let repo = Repo::new();
    repo.config("diff.external", &repo.program("external"));
    check(&repo, true).await;
}

#[tokio::test]
async fn diff_driver_command() {
    let repo = Repo::new();
    repo.config("diff.evil.command", &repo.program("driver"));
    check(&repo, true).await;
}

#[tokio::test]
async fn pager() {
    let repo = Repo::new();
    repo.config("core.pager", &repo.program("pager"));
    repo.config("pager.status", "true");
    repo.config("pager.diff", "true");
    check(&repo, true).await;
}

#[tokio::test]
async fn textconv() {
    let repo = Repo::new();
    repo.config("diff.evil.textconv", &repo.program("textconv"));
    check(&repo, true).await;
}

#[tokio::test]
async fn clean_smudge_and_required_filters() {
    let repo = Repo::new();
    std::fs::write(repo.path().join(".gitattributes"), "a.txt filter=evil\n").unwrap();
    git(repo.path(), &["add", ".gitattributes"]);
    repo.config("filter.evil.clean", &repo.program("clean"));
    repo.config("filter.evil.smudge", &repo.program("smudge"));
    repo.config("filter.evil.required", "true");
    check(&repo, true).await;
}

/// A driver name need not be UTF-8.
#[tokio::test]
async fn filter_with_a_name_that_is_not_utf8() {
    use std::io::Write;
    let repo = Repo::new();
    std::fs::write(
        repo.path().join(".gitattributes"),
        b"a.txt filter=\xff\xfe\n",
    )
    .unwrap();
    git(repo.path(), &["add", ".gitattributes"]);
    let mut config = std::fs::OpenOptions::new()
        .append(true)
        .open(repo.path().join(".git/config"))
        .unwrap();
    config
        .write_all(b"[filter \"\xff\xfe\"]\n\tclean = ")
        .unwrap();
    writeln!(config, "{}", repo.program("non-utf8-clean")).unwrap();
    check(&repo, true).await;
}

#[tokio::test]
async fn process_filter_named_in_info_attributes() {
    let repo = Repo::new();
    std::fs::write(repo.path().join(".git/info/attributes"), "* filter=evil\n").unwrap();
    repo.config("filter.evil.process", &repo.program("process"));
    check(&repo, true).await;
}

#[tokio::test]
async fn hooks() {
    let repo = Repo::new();
    let hooks = repo.path().join(".git/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    for hook in [
        "post-index-change",
        "reference-transaction",
        "post-checkout",
        "pre-auto-gc",
    ] {
        let path = hooks.join(hook);
        std::fs::write(&path, format!("#!/bin/sh\n{}\n", repo.program(hook))).unwrap();
        executable(&path);
    }
    repo.config("core.hooksPath", hooks.to_str().unwrap());
    check(&repo, true).await;
}

/// A partial clone fetches missing objects on demand (here: the blob the
/// diff needs), over a transport the repository chooses.
async fn partial_clone(url: &str) {
    let repo = Repo::new();
    let blob = git(repo.path(), &["rev-parse", "HEAD:a.txt"]);
    let blob = blob.trim();
    let object = format!(".git/objects/{}/{}", &blob[..2], &blob[2..]);
    std::fs::remove_file(repo.path().join(object)).unwrap();
    repo.config("core.repositoryformatversion", "1");
    repo.config("extensions.partialClone", "origin");
    repo.config("remote.origin.promisor", "true");
    repo.config(
        "remote.origin.url",
        &url.replace("PROGRAM", &repo.program("ext")),
    );
    repo.config("protocol.ext.allow", "always");
    repo.config("core.sshCommand", &repo.program("ssh"));
    check(&repo, false).await;
}

#[tokio::test]
async fn ssh_command_of_a_partial_clone() {
    partial_clone("ssh://example.invalid/repo").await;
}

#[tokio::test]
async fn ext_transport_of_a_partial_clone() {
    partial_clone("ext::PROGRAM").await;
}

#[tokio::test]
async fn included_config() {
    let repo = Repo::new();
    std::fs::write(
        repo.path().join(".gitattributes"),
        "a.txt filter=inc.luded\n",
    )
    .unwrap();
    git(repo.path(), &["add", ".gitattributes"]);
    let included = repo.path().join(".git/extra.cfg");
    std::fs::write(
        &included,
        format!(
            "[core]\n\tfsmonitor = {}\n[filter \"inc.luded\"]\n\tclean = {}\n",
            repo.program("included-fsmonitor"),
            repo.program("included-clean"),
        ),
    )
    .unwrap();
    repo.config("include.path", "extra.cfg");
    repo.config("includeIf.onbranch:main.path", included.to_str().unwrap());
    check(&repo, true).await;
}

#[tokio::test]
async fn submodule_with_its_own_filter() {
    let repo = Repo::new();
    let sub = repo.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    git(&sub, &["init", "-q", "-b", "main"]);
    std::fs::write(sub.join("s.txt"), "hello\n").unwrap();
    std::fs::write(sub.join(".gitattributes"), "s.txt filter=evil\n").unwrap();
    git(&sub, &["add", "."]);
    git(&sub, &["commit", "-q", "-m", "sub"]);
    git(repo.path(), &["add", "sub"]);
    git(
        &sub,
        &[
            "config",
            "filter.evil.clean",
            &repo.program("submodule-clean"),
        ],
    );
    std::fs::write(sub.join("s.txt"), "jello\n").unwrap();
    check(&repo, true).await;
}

/// Outside a repository there are no facts, and the tools say why.
#[tokio::test]
async fn no_repository() {
    let dir = tempfile::tempdir().unwrap();
    let facts = GitCache::default()
        .facts(dir.path().to_str().unwrap())
        .await;
    assert_eq!(facts, GitFacts::default());
    let s = setup_in_workspace(dir.path(), json!({})).await;
    let status = tool(&s, "git_status").await;
    assert_eq!(status["status"], "failed");
    assert!(status["detail"]
        .as_str()
        .unwrap()
        .contains("not a git repository"));
}
