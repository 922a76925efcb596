//! Git run in a workspace nobody vouched for. A repository's own config
//! (`.git/config`, `config.worktree`, anything they include) and its
//! attributes can name programs that git runs while merely reading status
//! or a diff: fsmonitor hooks, clean/process filters, external diff and
//! textconv drivers, hooks, and — in a partial clone, whose missing objects
//! are fetched on demand — ssh commands and remote helpers. Every git
//! process codewhale starts by itself comes from here, with all of those
//! switched off. The user's own global and system config still apply.

use super::env;
use std::{ffi::OsString, io, os::unix::ffi::OsStringExt, path::Path, process::Stdio};
use tokio::process::Command;

/// Config that wins over every file (command-line scope), stopping each
/// way status or diff could start a program.
const OVERRIDES: &[(&str, &str)] = &[
    ("core.fsmonitor", "false"),
    // No hooks: git looks for `/dev/null/<hook>`, which cannot exist.
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("core.sshCommand", "false"),
    ("core.askPass", ""),
    // An empty value empties the helper list.
    ("credential.helper", ""),
    ("protocol.allow", "never"),
    ("status.submoduleSummary", "false"),
    // Writes (fleet worktrees, commits) never sign, open an editor, touch
    // submodules, run maintenance or guess a remote to track.
    ("commit.gpgSign", "false"),
    ("tag.gpgSign", "false"),
    ("core.editor", ":"),
    ("sequence.editor", ":"),
    ("submodule.recurse", "false"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("branch.autoSetupMerge", "false"),
    ("worktree.guessRemote", "false"),
];

/// What to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Read {
    /// `git status`, with the caller's flags.
    Status,
    /// `git diff`, with the caller's flags and paths.
    Diff,
    /// `git ls-files`: names only, no contents read.
    LsFiles,
    /// `git cat-file`: raw objects, never filtered or converted (no
    /// `--filters` or `--textconv`, so no driver runs).
    CatFile,
}

impl Read {
    pub fn name(self) -> &'static str {
        self.argv()[0]
    }

    /// The subcommand and the flags that keep it from running drivers or
    /// looking inside submodules (which would start git there, with that
    /// repository's own filters).
    fn argv(self) -> &'static [&'static str] {
        match self {
            Read::Status => &["status", "--ignore-submodules=dirty"],
            Read::Diff => &[
                "diff",
                "--no-ext-diff",
                "--no-textconv",
                "--no-color",
                "--ignore-submodules=dirty",
            ],
            Read::LsFiles => &["ls-files"],
            Read::CatFile => &["cat-file"],
        }
    }
}

/// Runs `git <read> <args>` in `workspace` and collects its output.
pub async fn output(
    workspace: &Path,
    read: Read,
    args: &[&str],
) -> io::Result<std::process::Output> {
    let drivers = repository_filters(workspace).await?;
    let mut command = command(workspace, &drivers);
    command.args(read.argv()).args(args);
    command.output().await
}

/// Git on codewhale's own side repository `git_dir`, whose work tree is
/// `work_tree` (the snapshot store). The same disarmed command as every
/// read; the repository and its config are ours, and its
/// `info/attributes` switches off the work tree's filters and conversions.
/// stdin is null; a caller feeding it sets it piped. Without a work tree
/// (to create the repository), git runs in `git_dir`'s parent.
pub fn side(git_dir: &Path, work_tree: Option<&Path>) -> Command {
    let run_in = work_tree.or(git_dir.parent()).unwrap_or(git_dir);
    let mut command = command(run_in, &[]);
    command.arg("--git-dir").arg(git_dir);
    if let Some(work_tree) = work_tree {
        command.arg("--work-tree").arg(work_tree);
    }
    command
        .env("GIT_AUTHOR_NAME", "codewhale")
        .env("GIT_AUTHOR_EMAIL", "codewhale@localhost")
        .env("GIT_COMMITTER_NAME", "codewhale")
        .env("GIT_COMMITTER_EMAIL", "codewhale@localhost");
    command
}

/// `output`, with `input` written to git's standard input (object names
/// for `cat-file --batch`). Written while the output is read, so neither
/// pipe can fill and stall the other.
pub async fn output_with_input(
    workspace: &Path,
    read: Read,
    args: &[&str],
    input: &[u8],
) -> io::Result<std::process::Output> {
    use tokio::io::AsyncWriteExt;
    let drivers = repository_filters(workspace).await?;
    let mut command = command(workspace, &drivers);
    command.args(read.argv()).args(args).stdin(Stdio::piped());
    let mut child = command.spawn()?;
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| io::Error::other("no stdin"))?;
    let write = async move {
        let written = stdin.write_all(input).await;
        drop(stdin); // end of input
        written
    };
    let (written, output) = tokio::join!(write, child.wait_with_output());
    written?;
    output
}

/// Every config name with its scope, NUL-separated: what `filters_in` reads.
pub(super) const CONFIG_LISTING: [&str; 6] = [
    "config",
    "--list",
    "--includes",
    "--show-scope",
    "--name-only",
    "--null",
];

/// Filter drivers (`filter.<name>.*`) defined by config other than the
/// user's global and system files. Their names come from config rather
/// than from attributes: a driver that config does not define runs
/// nothing, while attributes live in every directory, the index and
/// `.git/info/attributes`. Fails (and so nothing is run) when config
/// cannot be read.
pub(super) async fn repository_filters(workspace: &Path) -> io::Result<Vec<Vec<u8>>> {
    let mut list = command(workspace, &[]);
    list.args(CONFIG_LISTING);
    let out = list.output().await?;
    if !out.status.success() {
        return Err(io::Error::other(format!(
            "cannot read the repository's git config: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(filters_in(&out.stdout))
}

/// The driver names in `git config --list --show-scope --name-only --null`
/// output (`scope\0name\0` pairs) from scopes other than global and system.
/// Kept as bytes: a name that is not UTF-8 still names a driver, and a
/// lossy copy would empty some other one.
pub(super) fn filters_in(listing: &[u8]) -> Vec<Vec<u8>> {
    let fields: Vec<&[u8]> = listing.split(|b| *b == 0).collect();
    let mut names: Vec<Vec<u8>> = fields
        .chunks(2)
        .filter(|pair| pair.len() == 2 && !matches!(pair[0], b"global" | b"system"))
        .filter_map(|pair| {
            let rest = pair[1].strip_prefix(b"filter.")?;
            let dot = rest.iter().rposition(|b| *b == b'.')?;
            Some(rest[..dot].to_vec())
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// `git` with the scrubbed environment, no inherited `GIT_*` variables
/// (they can point git at another repository, exec path or ssh command),
/// the overrides above, and each named filter driver emptied.
pub(super) fn command(workspace: &Path, filters: &[Vec<u8>]) -> Command {
    command_from(env::current(), workspace, filters)
}

/// `command`, starting from the environment `vars` (already scrubbed).
fn command_from(vars: Vec<(OsString, OsString)>, workspace: &Path, filters: &[Vec<u8>]) -> Command {
    let mut config: Vec<(OsString, &str)> = OVERRIDES
        .iter()
        .map(|(key, value)| (key.into(), *value))
        .collect();
    for name in filters {
        for (var, value) in [
            ("clean", ""),
            ("smudge", ""),
            ("process", ""),
            ("required", "false"),
        ] {
            let key = [b"filter.", &name[..], b".", var.as_bytes()].concat();
            config.push((OsString::from_vec(key), value));
        }
    }
    let mut command = Command::new("git");
    let std = command.as_std_mut();
    let inherited = vars.into_iter().filter(|(name, _)| {
        !name
            .to_string_lossy()
            .to_ascii_uppercase()
            .starts_with("GIT_")
    });
    std.env_clear().envs(inherited);
    // Passed as GIT_CONFIG_KEY/VALUE pairs rather than `-c`: a driver name
    // may contain `=`, which `-c` would split on.
    std.env("GIT_CONFIG_COUNT", config.len().to_string());
    for (n, (key, value)) in config.iter().enumerate() {
        std.env(format!("GIT_CONFIG_KEY_{n}"), key);
        std.env(format!("GIT_CONFIG_VALUE_{n}"), value);
    }
    std.env("GIT_OPTIONAL_LOCKS", "0") // no index write, so no post-index-change
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_NO_LAZY_FETCH", "1") // git 2.45+: a partial clone fetches nothing
        .env("GIT_ALLOW_PROTOCOL", "") // older git: every transport refused
        .arg("--no-pager")
        .arg("--no-optional-locks")
        .arg("-C")
        .arg(workspace)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command.kill_on_drop(true);
    command
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn filter_names_come_from_repository_scopes_only() {
        let listing = b"global\0filter.lfs.clean\0global\0user.name\0local\0filter.evil.clean\0\
                        local\0filter.a.b=c.process\0worktree\0filter.wt.smudge\0\
                        local\0filter.required\0local\0core.bare\0";
        let names: Vec<&[u8]> = [&b"a.b=c"[..], b"evil", b"wt"].to_vec();
        assert_eq!(filters_in(listing), names);
        assert_eq!(filters_in(b"local\0filter.\xff.clean\0"), [b"\xff"]);
    }

    #[test]
    fn reads_never_ask_for_drivers_or_conversions() {
        let diff = Read::Diff.argv();
        for flag in [
            "--no-ext-diff",
            "--no-textconv",
            "--ignore-submodules=dirty",
        ] {
            assert!(diff.contains(&flag), "{flag}");
        }
        // Raw objects and names only: no `--filters`, `--textconv`.
        assert_eq!(Read::CatFile.argv(), ["cat-file"]);
        assert_eq!(Read::LsFiles.argv(), ["ls-files"]);
    }

    #[tokio::test]
    async fn input_reaches_git_and_output_comes_back() {
        let dir = tempfile::tempdir().unwrap();
        let init = output(dir.path(), Read::Status, &[]).await.unwrap();
        assert!(!init.status.success(), "not a repository yet");
        let made = std::process::Command::new("git")
            .args(["init", "-q"])
            .arg(dir.path())
            .status()
            .unwrap();
        assert!(made.success());
        let out = output_with_input(dir.path(), Read::CatFile, &["--batch-check"], b"HEAD\n")
            .await
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        assert_eq!(out.stdout, b"HEAD missing\n");
    }

    #[test]
    fn the_command_disarms_config_and_carries_no_secrets() {
        let parent = [
            ("PATH", "/usr/bin"),
            ("HOME", "/home/u"),
            ("CODEWHALE_RUNTIME_TOKEN", "cwrt_secret"),
            ("OPENAI_API_KEY", "sk-secret"),
            ("SSH_AUTH_SOCK", "/run/agent"),
            ("GIT_DIR", "/elsewhere"),
            ("GIT_EXTERNAL_DIFF", "/bin/evil"),
            ("git_ssh_command", "/bin/evil"),
            ("GIT_CONFIG_PARAMETERS", "'core.fsmonitor'='/bin/evil'"),
        ];
        let vars = env::scrub(
            parent.iter().map(|(n, v)| (n.into(), v.into())),
            &BTreeSet::new(),
        );
        let command = command_from(vars, Path::new("/ws"), &[b"drv".to_vec()]);
        let std = command.as_std();
        let envs: Vec<(String, String)> = std
            .get_envs()
            .filter_map(|(n, v)| Some((n.to_str()?.to_string(), v?.to_str()?.to_string())))
            .collect();
        let get = |name: &str| {
            envs.iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_str())
        };
        let config: Vec<(&str, &str)> = (0..get("GIT_CONFIG_COUNT").unwrap().parse().unwrap())
            .map(|n| {
                (
                    get(&format!("GIT_CONFIG_KEY_{n}")).unwrap(),
                    get(&format!("GIT_CONFIG_VALUE_{n}")).unwrap(),
                )
            })
            .collect();
        for expected in [
            ("core.fsmonitor", "false"),
            ("core.hooksPath", "/dev/null"),
            ("filter.drv.clean", ""),
            ("filter.drv.process", ""),
            ("filter.drv.required", "false"),
        ] {
            assert!(config.contains(&expected), "{expected:?} in {config:?}");
        }
        assert_eq!(get("GIT_OPTIONAL_LOCKS"), Some("0"));
        assert_eq!(get("GIT_ALLOW_PROTOCOL"), Some(""));
        let inherited: Vec<&str> = envs
            .iter()
            .map(|(n, _)| n.as_str())
            .filter(|n| !n.starts_with("GIT_"))
            .collect();
        assert_eq!(inherited, ["HOME", "PATH"]);
        assert!(!envs
            .iter()
            .any(|(_, v)| v.contains("secret") || v.contains("evil")));
        assert_eq!(get("GIT_DIR"), None);
        let args: Vec<_> = std.get_args().collect();
        assert_eq!(args[..2], ["--no-pager", "--no-optional-locks"]);
        assert_eq!(std.get_program(), "git");
    }
}
