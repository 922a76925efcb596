//! `codewhale diagnostics export`: a support bundle someone can attach to a
//! bug report without reading it first. It holds what shape the
//! installation is in — version, platform, the configuration's keys and
//! problem lines, the store's counts and schema, how many MCP servers,
//! skills and sessions there are — and nothing anyone typed or any tool
//! produced: no configuration value, prompt, command, tool argument or
//! result, no error message (they quote values), and every path hashed.
//! Written to `$CODEWHALE_HOME/diagnostics/` (0700) as one JSON file
//! (0600); removing it affects nothing else.

use super::config_report;
use crate::doctor::storage;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::{
    fs::{self, OpenOptions},
    io::Write,
    os::unix::fs::{DirBuilderExt, OpenOptionsExt},
    path::{Path, PathBuf},
};

pub const DIR: &str = "diagnostics";

/// `sha256:` and the first 16 hex digits: the same path gives the same
/// hash, so bundles can be compared without saying where anything is.
pub fn hashed(path: &Path) -> String {
    let digest = Sha256::digest(path.as_os_str().as_encoded_bytes());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// The bundle's contents.
pub async fn bundle(home: &Path) -> Value {
    let config = config_report::report(home);
    let store = storage::store(home).await;
    let counts = storage::counts(home).await;
    let layers: Vec<Value> = config
        .layers
        .iter()
        .map(|layer| {
            let source = match layer.name.as_str() {
                "user" => hashed(Path::new(&layer.source)),
                _ => layer.source.clone(),
            };
            json!({ "name": layer.name, "source": source, "present": layer.present, "keys": layer.keys })
        })
        .collect();
    // Problems by place only: their messages may still describe a value.
    let problems: Vec<Value> = config
        .problems
        .iter()
        .map(|p| json!({ "layer": p.layer, "line": p.line }))
        .collect();
    let keys: Vec<&str> = config.keys.iter().map(|k| k.key.as_str()).collect();
    let mcp = crate::runtime::mcp::config::ServerFile::new(home).read();
    let mcp = match mcp {
        Ok(servers) => json!({
            "servers": servers.len(),
            "stdio": servers.values().filter(|s| s.url.is_none()).count(),
            "http": servers.values().filter(|s| s.url.is_some()).count(),
            "enabled": servers.values().filter(|s| s.enabled).count(),
            "trusted": servers.values().filter(|s| s.trusted).count(),
        }),
        Err(_) => json!({ "readable": false }),
    };
    json!({
        "format": "codewhale-diagnostics/1",
        "created_at": crate::clock::now(),
        "version": env!("CARGO_PKG_VERSION"),
        "platform": { "os": std::env::consts::OS, "arch": std::env::consts::ARCH },
        "home": hashed(home),
        "config": {
            "layers": layers,
            "keys": keys,
            "problems": problems,
        },
        "store": {
            "present": store.present,
            "bytes": store.bytes,
            "schema_version": store.schema_version,
            "expected_schema_version": store.expected_schema_version,
            "readable": store.error.is_none(),
            "tables": counts.as_ref().map(|c| &c.tables).ok(),
            "turn_statuses": counts.as_ref().map(|c| &c.turn_statuses).ok(),
        },
        "mcp": mcp,
        "skills": { "global": entries(&home.join("skills")) },
        "sessions": entries(&home.join(crate::runtime::sessions::files::DIR)),
        "snapshots_bytes": storage::size(&home.join("snapshots")),
        "worktrees": entries(&home.join("worktrees")),
        // codewhale logs to its stderr only; nothing is kept to re-sanitize.
        "logs": { "kept": false },
    })
}

fn entries(dir: &Path) -> u64 {
    fs::read_dir(dir).map_or(0, |d| d.count() as u64)
}

/// Writes the bundle; answers its path.
pub async fn export(home: &Path) -> Result<PathBuf, String> {
    let bundle = bundle(home).await;
    let dir = home.join(DIR);
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)
        .map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
    let name = format!(
        "codewhale-diagnostics-{stamp}-{}.json",
        crate::random::random_secret("", 4)
    );
    let path = dir.join(name);
    let text = serde_json::to_vec_pretty(&bundle).map_err(|e| e.to_string())?;
    OpenOptions::new()
        .create_new(true)
        .write(true)
        .mode(0o600)
        .open(&path)
        .and_then(|mut file| file.write_all(&text).and_then(|()| file.sync_all()))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}
