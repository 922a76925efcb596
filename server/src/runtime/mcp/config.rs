//! `[mcp.servers.NAME]` in `$CODEWHALE_HOME/config.toml`: read fresh on
//! every use (an edit by hand, or by another codewhale process, counts at
//! once), written by the API in place with `toml_edit` so the user's
//! comments and layout stay. A write holds `config.lock` (an OS file lock),
//! reads the file as it is now, changes one server, checks that the whole
//! file still loads, and renames a temporary file over it (mode 0600: it
//! holds the servers' secrets).

use crate::{
    config::{Config, CONFIG_FILE},
    diagnostics::config_report::value_free,
};
use serde::{Deserialize, Serialize};
use std::{
    collections::BTreeMap,
    fs::{self, OpenOptions},
    io::{self, Write},
    os::unix::fs::OpenOptionsExt,
    path::{Path, PathBuf},
};

const LOCK_FILE: &str = "config.lock";
/// Server names: letters, digits and `-`. No `_`, so `mcp__<server>__<tool>`
/// always says which server a tool is on (`a` + `b__c` and `a__b` + `c`
/// would otherwise be one name).
pub const NAME_PATTERN: &str = "^[A-Za-z0-9-]{1,32}$";
pub const MAX_NAME_CHARS: usize = 32;
pub const DEFAULT_STARTUP_TIMEOUT: u64 = 30;
pub const MAX_STARTUP_TIMEOUT: u64 = 600;
pub const DEFAULT_TOOL_TIMEOUT: u64 = 300;
pub const MAX_TOOL_TIMEOUT: u64 = 3600;
/// Servers one home may configure.
pub const MAX_SERVERS: usize = 32;
/// Environment variable names a server may be given.
pub const ENV_NAME_PATTERN: &str = "^[A-Za-z_][A-Za-z0-9_]{0,127}$";
/// Header names (RFC 9110 tokens).
pub const HEADER_NAME_PATTERN: &str = "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$";
/// Header values: visible ASCII and spaces.
pub const HEADER_VALUE_PATTERN: &str = "^[\\x20-\\x7E]{0,8192}$";

/// `[mcp]`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpConfig {
    #[serde(default)]
    pub servers: BTreeMap<String, ServerEntry>,
}

/// One `[mcp.servers.NAME]` table.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ServerEntry {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub trusted: bool,
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub enabled: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub startup_timeout_seconds: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_timeout_seconds: Option<u64>,
}

fn yes() -> bool {
    true
}
fn is_true(b: &bool) -> bool {
    *b
}
fn is_false(b: &bool) -> bool {
    !*b
}

impl ServerEntry {
    pub fn startup_timeout(&self) -> u64 {
        self.startup_timeout_seconds
            .unwrap_or(DEFAULT_STARTUP_TIMEOUT)
    }

    pub fn tool_timeout(&self) -> u64 {
        self.tool_timeout_seconds.unwrap_or(DEFAULT_TOOL_TIMEOUT)
    }

    /// Rules serde cannot express; the message names the server.
    pub fn check(&self, name: &str) -> Result<(), String> {
        let what = format!("mcp.servers.{name}");
        if !valid_name(name) {
            return Err(format!(
                "{what}: a server's name is 1 to {MAX_NAME_CHARS} letters, digits or '-'"
            ));
        }
        match (&self.command, &self.url) {
            (Some(_), Some(_)) => {
                return Err(format!("{what}: give a command or a url, not both"));
            }
            (None, None) => return Err(format!("{what}: give a command or a url")),
            (Some(command), None) => {
                if command.trim().is_empty() || command.contains('\0') {
                    return Err(format!("{what}: the command is empty"));
                }
                if !self.headers.is_empty() {
                    return Err(format!("{what}: headers are for a url"));
                }
            }
            (None, Some(url)) => {
                check_url(url).map_err(|e| format!("{what}: {e}"))?;
                if !self.args.is_empty() || !self.env.is_empty() || self.cwd.is_some() {
                    return Err(format!("{what}: args, env and cwd are for a command"));
                }
            }
        }
        if let Some(cwd) = &self.cwd {
            if !Path::new(cwd).is_absolute() {
                return Err(format!("{what}: cwd must be an absolute path"));
            }
        }
        for key in self.env.keys() {
            if !regex_lite_match_env(key) {
                return Err(format!("{what}: {key:?} is not a variable name"));
            }
        }
        for (key, value) in &self.headers {
            if !valid_header(key, value) {
                return Err(format!("{what}: the header {key:?} is not valid"));
            }
        }
        let bounded = |value: Option<u64>, max: u64, field: &str| match value {
            Some(v) if !(1..=max).contains(&v) => Err(format!(
                "{what}: {field} must be between 1 and {max} (got {v})"
            )),
            _ => Ok(()),
        };
        bounded(
            self.startup_timeout_seconds,
            MAX_STARTUP_TIMEOUT,
            "startup_timeout_seconds",
        )?;
        bounded(
            self.tool_timeout_seconds,
            MAX_TOOL_TIMEOUT,
            "tool_timeout_seconds",
        )
    }
}

pub fn valid_name(name: &str) -> bool {
    (1..=MAX_NAME_CHARS).contains(&name.len())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

impl ServerEntry {
    /// What no error or record may repeat: variable and header values (and
    /// a bearer token alone), and any password or query of its URL and of
    /// URL-like arguments.
    pub fn secrets(&self) -> Vec<String> {
        let mut secrets: Vec<String> = self.env.values().cloned().collect();
        for value in self.headers.values() {
            secrets.push(value.clone());
            if let Some((_, token)) = value.split_once(' ') {
                secrets.push(token.trim().to_string());
            }
        }
        let urls = self
            .url
            .iter()
            .chain(self.args.iter().filter(|a| a.contains("://")));
        for url in urls {
            if let Ok(parsed) = reqwest::Url::parse(url) {
                secrets.extend(parsed.password().map(str::to_string));
                secrets.extend(parsed.query().map(str::to_string));
                secrets.extend(parsed.fragment().map(str::to_string));
            }
        }
        secrets.retain(|s| s.len() >= 3);
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        secrets
    }
}

fn regex_lite_match_env(key: &str) -> bool {
    let mut chars = key.chars();
    key.len() <= 128
        && chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `HEADER_NAME_PATTERN` and `HEADER_VALUE_PATTERN`.
fn valid_header(name: &str, value: &str) -> bool {
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+.^_`|~-".contains(c);
    (1..=128).contains(&name.len())
        && name.chars().all(token)
        && value.len() <= 8192
        && value.chars().all(|c| (' '..='~').contains(&c))
}

fn check_url(url: &str) -> Result<(), String> {
    let parsed = reqwest::Url::parse(url).map_err(|e| format!("the url is not valid: {e}"))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err("the url must be http:// or https:// with a host".into());
    }
    Ok(())
}

/// ` (line N)` of a span, for messages that must not quote the line.
fn line_of(text: &str, span: Option<std::ops::Range<usize>>) -> String {
    span.and_then(|span| text.get(..span.start))
        .map(|before| format!(" (line {})", before.matches('\n').count() + 1))
        .unwrap_or_default()
}

/// `[mcp]` alone: the rest of the file is the commands' to check.
#[derive(Deserialize)]
struct McpOnly {
    #[serde(default)]
    mcp: McpConfig,
}

/// The servers configured in the home's `config.toml`.
#[derive(Clone)]
pub struct ServerFile {
    home: PathBuf,
}

impl ServerFile {
    pub fn new(home: &Path) -> Self {
        Self {
            home: home.to_path_buf(),
        }
    }

    fn path(&self) -> PathBuf {
        self.home.join(CONFIG_FILE)
    }

    /// The servers as the file says now; blocking (a small file).
    pub fn read(&self) -> Result<BTreeMap<String, ServerEntry>, String> {
        let text = match fs::read_to_string(self.path()) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
            Err(e) => return Err(format!("cannot read {CONFIG_FILE}: {e}")),
        };
        let only: McpOnly = toml::from_str(&text).map_err(|e| {
            let line = line_of(&text, e.span());
            format!("{CONFIG_FILE}{line}: {}", value_free(e.message()))
        })?;
        Ok(only.mcp.servers)
    }

    /// Changes one server under the lock: `change` gets the current entry
    /// (if any) and returns the new one (`None` removes it). The file is
    /// written only when the whole of it still loads. Blocking.
    pub fn update<T>(
        &self,
        name: &str,
        change: impl FnOnce(Option<ServerEntry>) -> Result<(Option<ServerEntry>, T), Edit>,
    ) -> Result<T, Edit> {
        fs::create_dir_all(&self.home).map_err(Edit::io)?;
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(self.home.join(LOCK_FILE))
            .map_err(Edit::io)?;
        lock.lock().map_err(Edit::io)?;
        let text = match fs::read_to_string(self.path()) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(Edit::io(e)),
        };
        let mut document: toml_edit::DocumentMut =
            text.parse().map_err(|e: toml_edit::TomlError| {
                let line = line_of(&text, e.span());
                Edit::Damaged(format!("{CONFIG_FILE} does not parse{line}"))
            })?;
        let current = self.read().map_err(Edit::Damaged)?;
        if current.len() >= MAX_SERVERS && !current.contains_key(name) {
            return Err(Edit::Conflict(format!(
                "{MAX_SERVERS} MCP servers are configured already"
            )));
        }
        let (next, answer) = change(current.get(name).cloned())?;
        let servers = servers_table(&mut document)?;
        match next {
            Some(entry) => {
                entry.check(name).map_err(Edit::Invalid)?;
                let value: toml_edit::DocumentMut = toml::to_string(&entry)
                    .map_err(|e| Edit::Damaged(e.to_string()))?
                    .parse()
                    .map_err(|e: toml_edit::TomlError| Edit::Damaged(e.to_string()))?;
                let mut table = value.as_table().clone();
                table.set_implicit(false);
                match servers.get_mut(name).and_then(|item| item.as_table_mut()) {
                    // Keep the table's place and decor; replace its keys.
                    Some(existing) => {
                        existing.clear();
                        for (key, item) in table.iter() {
                            existing.insert(key, item.clone());
                        }
                    }
                    None => {
                        servers.insert(name, toml_edit::Item::Table(table));
                    }
                }
            }
            None => {
                servers.remove(name);
            }
        }
        let text = document.to_string();
        // Never write a file the next start would refuse.
        toml::from_str::<Config>(&text)
            .map_err(|e| Edit::Invalid(value_free(e.message())))
            .and_then(|config| config.check().map_err(|m| Edit::Invalid(value_free(&m))))?;
        self.replace(text.as_bytes()).map_err(Edit::io)?;
        drop(lock);
        Ok(answer)
    }

    fn replace(&self, text: &[u8]) -> io::Result<()> {
        let temporary = self.home.join(format!(
            ".{CONFIG_FILE}.{}",
            crate::random::random_secret("", 8)
        ));
        let written = OpenOptions::new()
            .create_new(true)
            .write(true)
            .mode(0o600)
            .open(&temporary)
            .and_then(|mut file| file.write_all(text).and_then(|()| file.sync_all()))
            .and_then(|()| fs::rename(&temporary, self.path()));
        if written.is_err() {
            let _ = fs::remove_file(&temporary);
        }
        written
    }
}

/// `mcp.servers`, made (as a dotted-free `[mcp.servers.x]` layout) when
/// absent.
fn servers_table(document: &mut toml_edit::DocumentMut) -> Result<&mut toml_edit::Table, Edit> {
    let not_table = || Edit::Damaged(format!("{CONFIG_FILE}: mcp.servers is not a table"));
    let mcp = document
        .entry("mcp")
        .or_insert_with(|| {
            let mut table = toml_edit::Table::new();
            table.set_implicit(true);
            toml_edit::Item::Table(table)
        })
        .as_table_mut()
        .ok_or_else(not_table)?;
    mcp.entry("servers")
        .or_insert_with(|| {
            let mut table = toml_edit::Table::new();
            table.set_implicit(true);
            toml_edit::Item::Table(table)
        })
        .as_table_mut()
        .ok_or_else(not_table)
}

/// Why a change to the file was not made.
#[derive(Debug)]
pub enum Edit {
    NotFound(String),
    Conflict(String),
    Invalid(String),
    /// The file as it is cannot be edited safely.
    Damaged(String),
    Io(String),
}

impl Edit {
    fn io(error: io::Error) -> Self {
        Edit::Io(error.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdio(command: &str) -> ServerEntry {
        ServerEntry {
            command: Some(command.into()),
            enabled: true,
            ..Default::default()
        }
    }

    #[test]
    fn edits_keep_the_rest_of_the_file_and_its_comments() {
        let home = tempfile::tempdir().unwrap();
        let original = "# my settings\ndefault_provider = \"mock\" # the local one\n\n[tasks]\nconcurrency = 3\n";
        fs::write(home.path().join(CONFIG_FILE), original).unwrap();
        let file = ServerFile::new(home.path());
        let mut entry = stdio("npx");
        entry.args = vec!["-y".into(), "server".into()];
        entry.env.insert("TOKEN".into(), "s3cret".into());
        file.update("fs", |_| Ok((Some(entry.clone()), ())))
            .unwrap();
        let text = fs::read_to_string(home.path().join(CONFIG_FILE)).unwrap();
        assert!(text.starts_with(original), "{text}");
        assert!(text.contains("[mcp.servers.fs]"), "{text}");
        assert_eq!(file.read().unwrap()["fs"], entry);
        let mode = fs::metadata(home.path().join(CONFIG_FILE)).unwrap();
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(mode.permissions().mode() & 0o777, 0o600);

        // A change keeps the table where it is; a removal leaves the rest.
        file.update("web", |_| {
            let entry = ServerEntry {
                url: Some("http://127.0.0.1:9/mcp".into()),
                enabled: true,
                ..Default::default()
            };
            Ok((Some(entry), ()))
        })
        .unwrap();
        file.update("fs", |e| {
            let mut e = e.unwrap();
            e.trusted = true;
            Ok((Some(e), ()))
        })
        .unwrap();
        let servers = file.read().unwrap();
        assert!(servers["fs"].trusted && servers.contains_key("web"));
        file.update("fs", |_| Ok((None, ()))).unwrap();
        let text = fs::read_to_string(home.path().join(CONFIG_FILE)).unwrap();
        assert!(text.starts_with(original), "{text}");
        assert!(!text.contains("servers.fs"), "{text}");
        assert!(text.contains("[mcp.servers.web]"), "{text}");
    }

    #[test]
    fn a_bad_entry_or_a_damaged_file_is_never_written() {
        let home = tempfile::tempdir().unwrap();
        let file = ServerFile::new(home.path());
        let both = ServerEntry {
            command: Some("x".into()),
            url: Some("http://h/".into()),
            enabled: true,
            ..Default::default()
        };
        assert!(matches!(
            file.update("x", |_| Ok((Some(both), ()))),
            Err(Edit::Invalid(_))
        ));
        assert!(!home.path().join(CONFIG_FILE).exists());
        fs::write(home.path().join(CONFIG_FILE), "[mcp\nbroken").unwrap();
        assert!(matches!(
            file.update("x", |_| Ok((Some(stdio("x")), ()))),
            Err(Edit::Damaged(_))
        ));
        assert_eq!(
            fs::read_to_string(home.path().join(CONFIG_FILE)).unwrap(),
            "[mcp\nbroken"
        );
    }

    #[test]
    fn entries_are_checked() {
        assert!(stdio("npx").check("fs").is_ok());
        assert!(stdio("npx").check("bad name").is_err());
        assert!(stdio(" ").check("fs").is_err());
        let mut env = stdio("npx");
        env.env.insert("1BAD".into(), "v".into());
        assert!(env.check("fs").is_err());
        let ftp = ServerEntry {
            url: Some("ftp://h/".into()),
            ..Default::default()
        };
        assert!(ftp.check("w").is_err());
        let mut slow = stdio("npx");
        slow.startup_timeout_seconds = Some(0);
        assert!(slow.check("fs").is_err());
    }
}
