//! The doctor's report: what it holds and how each part is found.

use super::{
    probe::{self, Reachability},
    storage::{self, Place, StoreFacts},
};
use crate::{config::Config, provider::registry::Providers};
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Serialize)]
pub struct Report {
    pub version: String,
    pub config_path: String,
    pub config_present: bool,
    /// Why config.toml was not used (quoted values redacted); null if fine.
    pub config_error: Option<String>,
    pub workspace: String,
    pub api_key: ApiKey,
    pub base_url: String,
    pub default_text_model: Option<String>,
    pub provider: Provider,
    pub memory: Memory,
    pub mcp: Mcp,
    pub skills: Skills,
    pub tools: Place,
    pub plugins: Place,
    pub sandbox: Sandbox,
    pub storage: Storage,
}

#[derive(Debug, Serialize)]
pub struct ApiKey {
    /// env (the provider's built-in variable is set), config (a variable
    /// config.toml names is set), missing, or not_required (a keyless
    /// endpoint). Never the key.
    pub source: &'static str,
    /// The variable it is read from.
    pub variable: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct Provider {
    pub id: String,
    pub reachability: Reachability,
}

#[derive(Debug, Serialize)]
pub struct Memory {
    /// This version has no memory feature.
    pub enabled: bool,
    pub path: String,
    pub file_present: bool,
}

#[derive(Debug, Serialize)]
pub struct Mcp {
    pub config_path: String,
    pub present: bool,
    pub probe_scope: &'static str,
    pub live_health_checked: bool,
    pub servers: Vec<McpServer>,
    pub error: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct McpServer {
    pub name: String,
    pub enabled: bool,
    pub status: &'static str,
    pub detail: String,
}

#[derive(Debug, Serialize)]
pub struct Skills {
    /// The first skills directory present (this version does not load skills).
    pub selected: Option<String>,
    pub global: Place,
    pub agents: Place,
    pub agents_global: Place,
    pub local: Place,
    pub opencode: Place,
    pub claude: Place,
}

#[derive(Debug, Serialize)]
pub struct Sandbox {
    pub available: bool,
    pub kind: Option<String>,
    pub detail: &'static str,
}

#[derive(Debug, Serialize)]
pub struct Storage {
    pub home: Place,
    pub store: StoreFacts,
    pub snapshots: Place,
    pub tls: Place,
}

/// Looks at `home` and `workspace`; contacts the provider unless `offline`.
pub async fn gather(home: &Path, workspace: &Path, offline: bool) -> Report {
    let config_path = home.join(crate::config::CONFIG_FILE);
    let (config, config_error) = match Config::load(home) {
        Ok(config) => (config, None),
        Err(error) => (Config::default(), Some(config_problem(&config_path, error))),
    };
    let summary = Providers::from_config(&config).default_summary();
    let (id, base_url, model, api_key) = match summary {
        Some(p) => {
            let named_in_config = config
                .providers
                .get(&p.id)
                .is_some_and(|e| e.api_key_env.is_some());
            let source = match (&p.api_key_env, p.key_set) {
                (None, _) => "not_required",
                (Some(_), false) => "missing",
                (Some(_), true) if named_in_config => "config",
                (Some(_), true) => "env",
            };
            let key = ApiKey {
                source,
                variable: p.api_key_env,
            };
            (p.id, p.base_url, p.default_model, key)
        }
        None => {
            let key = ApiKey {
                source: "missing",
                variable: None,
            };
            (
                config.default_provider.clone().unwrap_or_default(),
                String::new(),
                None,
                key,
            )
        }
    };
    let mut reachability = if offline {
        probe::skipped(&base_url)
    } else {
        probe::check(&base_url).await
    };
    reachability.url = redact_url(&reachability.url);
    let memory = home.join("memory.md");
    Report {
        version: env!("CARGO_PKG_VERSION").to_string(),
        config_path: config_path.display().to_string(),
        config_present: config_path.is_file(),
        config_error,
        workspace: workspace.display().to_string(),
        api_key,
        base_url: redact_url(&base_url),
        default_text_model: model,
        provider: Provider { id, reachability },
        memory: Memory {
            enabled: false,
            path: memory.display().to_string(),
            file_present: memory.is_file(),
        },
        mcp: mcp(home),
        skills: skills(home, workspace),
        tools: Place::counted(&home.join("tools")),
        plugins: Place::counted(&home.join("plugins")),
        sandbox: Sandbox {
            available: false,
            kind: None,
            detail: "no OS sandbox: commands the agent runs (after approval) get a scrubbed environment and the workspace as their directory; git runs hardened",
        },
        storage: Storage {
            home: Place::measured(home),
            store: storage::store(home).await,
            snapshots: Place::measured(&home.join("snapshots")),
            tls: Place::counted(&home.join("tls")),
        },
    }
}

/// A config.toml that does not load, said without its values: TOML's own
/// message quotes the offending line, which may hold a secret, so only
/// the line number and serde's message (quoted strings redacted) are kept.
fn config_problem(path: &Path, error: crate::error::RunError) -> String {
    let Ok(text) = std::fs::read_to_string(path) else {
        return redact_quoted(&error.to_string());
    };
    match toml::from_str::<Config>(&text) {
        Err(e) => {
            let line = e
                .span()
                .and_then(|span| text.get(..span.start))
                .map(|before| before.matches('\n').count() + 1);
            let message = redact_quoted(e.message());
            match line {
                Some(line) => format!("line {line}: {message}"),
                None => message,
            }
        }
        // Parsed, but a rule failed (numbers only, no secrets).
        Ok(_) => redact_quoted(&error.to_string()),
    }
}

/// `"anything"` → `"…"`.
fn redact_quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut parts = text.split('"');
    if let Some(first) = parts.next() {
        out.push_str(first);
    }
    for (i, part) in parts.enumerate() {
        out.push('"');
        out.push_str(if i % 2 == 0 { "…" } else { part });
    }
    out
}

/// Drops `user:password@`, the query and the fragment from a URL (any of
/// them may carry a key, e.g. `?api-key=…`).
fn redact_url(url: &str) -> String {
    let url = url.split(['?', '#']).next().unwrap_or_default();
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{scheme}://{}", &rest[at + 1..]),
        None => url.to_string(),
    }
}

/// The MCP servers of `config.toml` (`[mcp.servers]`, what codewhale
/// starts), then any in a legacy `mcp.json` (which it does not read, said
/// so). Names only: commands and environments may carry secrets. Nothing
/// is started.
fn mcp(home: &Path) -> Mcp {
    let configured = crate::runtime::mcp::config::ServerFile::new(home).read();
    let legacy = home.join("mcp.json");
    let in_config = configured.as_ref().map_or(0, |servers| servers.len());
    let path = if in_config == 0 && legacy.is_file() {
        legacy.clone()
    } else {
        home.join(crate::config::CONFIG_FILE)
    };
    let mut report = Mcp {
        config_path: path.display().to_string(),
        present: in_config > 0 || legacy.is_file(),
        probe_scope: "configuration",
        live_health_checked: false,
        servers: Vec::new(),
        error: configured.as_ref().err().map(|e| redact_quoted(e)),
    };
    for (name, entry) in configured.into_iter().flatten() {
        report.servers.push(McpServer {
            name,
            enabled: entry.enabled,
            status: "not_checked",
            detail: "configured in config.toml; started when a turn first needs it".into(),
        });
    }
    let path = legacy;
    if !path.is_file() {
        return report;
    }
    let parsed = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read: {}", e.kind()))
        .and_then(|text| {
            serde_json::from_str::<serde_json::Value>(&text)
                .map_err(|e| format!("not JSON (line {})", e.line()))
        });
    match parsed {
        Ok(value) => {
            let servers = value
                .get("mcpServers")
                .or_else(|| value.get("servers"))
                .and_then(|s| s.as_object());
            for (name, entry) in servers.into_iter().flatten() {
                let enabled = entry.get("disabled").and_then(|d| d.as_bool()) != Some(true)
                    && entry.get("enabled").and_then(|d| d.as_bool()) != Some(false);
                report.servers.push(McpServer {
                    name: name.clone(),
                    enabled,
                    status: "not_checked",
                    detail: "in mcp.json, which codewhale does not read: add it under [mcp.servers] in config.toml"
                        .into(),
                });
            }
        }
        Err(error) => report.error = Some(error),
    }
    report
}

/// The skills directories other agents use, with how many skills each holds.
fn skills(home: &Path, workspace: &Path) -> Skills {
    let user_home = std::env::var_os("HOME").map(PathBuf::from);
    let agents_global = user_home
        .map(|h| h.join(".agents/skills"))
        .unwrap_or_else(|| PathBuf::from("~/.agents/skills"));
    let skills = Skills {
        selected: None,
        global: Place::counted(&home.join("skills")),
        agents: Place::counted(&workspace.join(".agents/skills")),
        agents_global: Place::counted(&agents_global),
        local: Place::counted(&workspace.join("skills")),
        opencode: Place::counted(&workspace.join(".opencode/skills")),
        claude: Place::counted(&workspace.join(".claude/skills")),
    };
    let selected = [
        &skills.agents,
        &skills.local,
        &skills.opencode,
        &skills.claude,
        &skills.global,
        &skills.agents_global,
    ]
    .iter()
    .find(|p| p.present)
    .map(|p| p.path.clone());
    Skills { selected, ..skills }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_values_and_url_credentials_are_redacted() {
        assert_eq!(
            redact_quoted(r#"invalid type: string "sk-secret", expected u64"#),
            r#"invalid type: string "…", expected u64"#
        );
        assert_eq!(redact_quoted("no quotes"), "no quotes");
        assert_eq!(
            redact_url("https://user:sk-1@example.com/v1"),
            "https://example.com/v1"
        );
        assert_eq!(redact_url("http://127.0.0.1:9/v1"), "http://127.0.0.1:9/v1");
    }
}
