//! The value-free configuration report: layers (built-in defaults,
//! `config.toml`, the environment), which layer set each key, and what is
//! wrong. `config.toml` is read as a plain TOML tree for its keys — never
//! its values — then loaded as the commands load it for its problems, whose
//! messages lose any quoted text (TOML quotes the offending value).

use crate::config::{Config, CONFIG_FILE};
use protocol::{ConfigDiagnostics, ConfigKey, ConfigLayer, ConfigProblem};
use std::path::Path;

/// Variables codewhale reads itself (besides those `config.toml` names as
/// a provider's key).
const ENVIRONMENT: &[&str] = &[
    "CODEWHALE_HOME",
    "CODEWHALE_RUNTIME_TOKEN",
    "DEEPSEEK_RUNTIME_TOKEN",
    "CODEWHALE_CORS_ORIGINS",
    "DEEPSEEK_CORS_ORIGINS",
    crate::provider::registry::IDLE_TIMEOUT_ENV,
    "DEEPSEEK_API_KEY",
    "DEEPSEEK_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
];

pub fn report(home: &Path) -> ConfigDiagnostics {
    let path = home.join(CONFIG_FILE);
    let mut keys = Vec::new();
    let mut problems = Vec::new();
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            problems.push(ConfigProblem {
                layer: "user".into(),
                line: None,
                message: format!("cannot read {CONFIG_FILE}: {}", e.kind()),
            });
            None
        }
    };
    let mut named_keys = Vec::new();
    if let Some(text) = &text {
        match text.parse::<toml::Table>() {
            Ok(table) => {
                leaves("", &toml::Value::Table(table.clone()), &mut |key| {
                    keys.push(ConfigKey {
                        key,
                        set_by: "user".into(),
                    })
                });
                // Variables a provider's key is read from: names, presence.
                for provider in table
                    .get("providers")
                    .and_then(|p| p.as_table())
                    .into_iter()
                    .flat_map(|t| t.values())
                {
                    if let Some(name) = provider.get("api_key_env").and_then(|v| v.as_str()) {
                        named_keys.push(name.to_string());
                    }
                }
                if let Err(message) = toml::from_str::<Config>(text)
                    .map_err(|e| (line_of(text, e.span()), e.message().to_string()))
                    .and_then(|config| config.check().map_err(|m| (None, m)))
                {
                    problems.push(ConfigProblem {
                        layer: "user".into(),
                        line: message.0,
                        message: value_free(&message.1),
                    });
                }
            }
            Err(e) => problems.push(ConfigProblem {
                layer: "user".into(),
                line: line_of(text, e.span()),
                message: value_free(e.message()),
            }),
        }
    }
    let user_keys = keys.len() as u64;
    let mut environment: Vec<String> = ENVIRONMENT.iter().map(|s| s.to_string()).collect();
    environment.extend(named_keys);
    environment.sort();
    environment.dedup();
    let set: Vec<String> = environment
        .into_iter()
        .filter(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()))
        .collect();
    for name in &set {
        keys.push(ConfigKey {
            key: format!("env.{name}"),
            set_by: "environment".into(),
        });
    }
    ConfigDiagnostics {
        layers: vec![
            ConfigLayer {
                name: "defaults".into(),
                source: "built-in".into(),
                present: true,
                keys: 0,
            },
            ConfigLayer {
                name: "user".into(),
                source: path.display().to_string(),
                present: text.is_some(),
                keys: user_keys,
            },
            ConfigLayer {
                name: "environment".into(),
                source: "process environment".into(),
                present: !set.is_empty(),
                keys: set.len() as u64,
            },
        ],
        keys,
        problems,
    }
}

/// Every leaf's dotted key: tables are walked, arrays of tables indexed,
/// any other value (arrays of values included) is a leaf.
fn leaves(prefix: &str, value: &toml::Value, found: &mut impl FnMut(String)) {
    let join = |key: &str| {
        let key = if key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            key.to_string()
        } else {
            format!("{key:?}")
        };
        if prefix.is_empty() {
            key
        } else {
            format!("{prefix}.{key}")
        }
    };
    match value {
        toml::Value::Table(table) => {
            for (key, value) in table {
                leaves(&join(key), value, found);
            }
        }
        toml::Value::Array(items) if !items.is_empty() && items.iter().all(|v| v.is_table()) => {
            for (n, item) in items.iter().enumerate() {
                leaves(&format!("{prefix}[{n}]"), item, found);
            }
        }
        _ => found(prefix.to_string()),
    }
}

fn line_of(text: &str, span: Option<std::ops::Range<usize>>) -> Option<u64> {
    let start = span?.start;
    Some(text.get(..start)?.matches('\n').count() as u64 + 1)
}

/// A message without values: quoted text becomes `"…"`, backquoted text
/// stays only when it looks like a key name, and a rule's `(got …)` goes.
pub fn value_free(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find(['"', '\'', '`']) {
        out.push_str(&rest[..at]);
        let quote = rest[at..].chars().next().unwrap_or('"');
        let after = &rest[at + 1..];
        match after.find(quote) {
            Some(end) => {
                let inner = &after[..end];
                // Backquoted names are kept where serde names a field or
                // lists what it expected; elsewhere (`invalid type: integer
                // `5``, `unknown variant `x``) backquotes hold the value.
                let naming = out.ends_with("field ")
                    || out.ends_with("one of ")
                    || out.ends_with("`, ")
                    || out.ends_with("expected ");
                let key_like = quote == '`'
                    && naming
                    && !inner.is_empty()
                    && inner.len() <= 64
                    && inner
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c));
                out.push(quote);
                out.push_str(if key_like { inner } else { "…" });
                out.push(quote);
                rest = &after[end + 1..];
            }
            None => {
                out.push(quote);
                out.push('…');
                rest = "";
            }
        }
    }
    out.push_str(rest);
    match out.find(" (got ") {
        Some(at) => {
            let close = out[at..].find(')').map_or(out.len(), |c| at + c + 1);
            out.replace_range(at..close, "");
            out
        }
        None => out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_lose_their_values() {
        assert_eq!(
            value_free("invalid type: string \"sk-secret\", expected u32"),
            "invalid type: string \"…\", expected u32"
        );
        assert_eq!(
            value_free("unknown field `colour`, expected one of `runtime_api`, `providers`"),
            "unknown field `colour`, expected one of `runtime_api`, `providers`"
        );
        assert_eq!(
            value_free("runtime_api.device_session_days must be between 1 and 365 (got 999)"),
            "runtime_api.device_session_days must be between 1 and 365"
        );
        assert_eq!(value_free("a `key with spaces` here"), "a `…` here");
        assert_eq!(
            value_free("invalid type: integer `123456`, expected a string"),
            "invalid type: integer `…`, expected a string"
        );
        assert_eq!(
            value_free("unknown variant `sk-abc-123`, expected one of `one`, `none`"),
            "unknown variant `…`, expected one of `one`, `none`"
        );
    }

    #[test]
    fn keys_are_reported_with_their_layer_and_values_never() {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(
            home.path().join(CONFIG_FILE),
            "default_provider = \"mock\"\n[providers.mock]\nbase_url = \"http://h/?key=planted-secret\"\napi_key_env = \"PLANTED_KEY_VAR\"\n[mcp.servers.fs]\ncommand = \"npx\"\nenv = { TOKEN = \"planted-token\" }\n[[pricing.m]]\ninput = 1.0\noutput = 2.0\n",
        )
        .unwrap();
        let report = report(home.path());
        let text = serde_json::to_string(&report).unwrap();
        assert!(!text.contains("planted-secret") && !text.contains("planted-token"));
        assert!(!text.contains("\"mock\""), "{text}");
        let keys: Vec<&str> = report.keys.iter().map(|k| k.key.as_str()).collect();
        for key in [
            "default_provider",
            "providers.mock.base_url",
            "mcp.servers.fs.env.TOKEN",
            "pricing.m[0].input",
        ] {
            assert!(keys.contains(&key), "{key} in {keys:?}");
        }
        assert!(report.problems.is_empty(), "{:?}", report.problems);

        std::fs::write(
            home.path().join(CONFIG_FILE),
            "[runtime_api]\ndevice_session_days = \"planted-value\"\n",
        )
        .unwrap();
        let report = super::report(home.path());
        assert_eq!(report.problems.len(), 1);
        assert_eq!(report.problems[0].line, Some(2));
        assert!(!serde_json::to_string(&report)
            .unwrap()
            .contains("planted-value"));
    }
}
