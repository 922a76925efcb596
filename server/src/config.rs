//! `$CODEWHALE_HOME/config.toml`. Absent is fine; malformed is an error that
//! names the file, never a silent default.

use crate::error::RunError;
use chrono::{DateTime, Utc};
use serde::Deserialize;
use std::{collections::BTreeMap, path::Path};

pub const CONFIG_FILE: &str = "config.toml";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub runtime_api: RuntimeApiConfig,
    /// Provider used when a thread names none.
    pub default_provider: Option<String>,
    /// Custom OpenAI-compatible providers (Ollama, vLLM, OpenRouter, …),
    /// and overrides of the built-in `deepseek` and `openai`.
    #[serde(default)]
    pub providers: BTreeMap<String, ProviderEntry>,
    /// USD per million tokens, by model id; overrides the built-in table.
    /// One table (`[pricing.m]`) or several dated ones (`[[pricing.m]]`).
    #[serde(default)]
    pub pricing: BTreeMap<String, Prices>,
    #[serde(default)]
    pub compaction: CompactionConfig,
    #[serde(default)]
    pub tasks: TasksConfig,
    #[serde(default)]
    pub automations: AutomationsConfig,
    #[serde(default)]
    pub subagents: SubAgentsConfig,
    /// MCP servers whose tools the model may call (`runtime/mcp/`).
    #[serde(default)]
    pub mcp: crate::runtime::mcp::config::McpConfig,
}

/// `spawn_agent`'s limits (`runtime/agent_runs/`).
#[derive(Clone, Copy, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubAgentsConfig {
    /// How deep sub-agents may nest (default 2; 0: no sub-agents).
    pub max_depth: Option<u32>,
    /// Sub-agents one turn may spawn (default 4).
    pub max_per_turn: Option<u32>,
    /// Sub-agents running at once (default 4).
    pub max_running: Option<u32>,
}

impl SubAgentsConfig {
    pub fn limits(&self) -> crate::runtime::agent_runs::SubAgentLimits {
        let default = crate::runtime::agent_runs::SubAgentLimits::default();
        crate::runtime::agent_runs::SubAgentLimits {
            max_depth: self.max_depth.unwrap_or(default.max_depth),
            max_per_turn: self.max_per_turn.unwrap_or(default.max_per_turn).max(1),
            max_running: self.max_running.unwrap_or(default.max_running).max(1),
        }
    }
}

/// The automation scheduler (`runtime/automations/`).
#[derive(Clone, Copy, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AutomationsConfig {
    /// Runs missed while codewhale was down: "one" (default) runs each
    /// automation once on start, "none" skips to the next scheduled run.
    #[serde(default)]
    pub catch_up: crate::runtime::automations::CatchUp,
}

/// The task queue (`runtime/tasks.rs`).
#[derive(Clone, Copy, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TasksConfig {
    /// Tasks running at once in a serving process (default 2, at least 1).
    pub concurrency: Option<usize>,
}

impl TasksConfig {
    pub fn concurrency(&self) -> usize {
        self.concurrency
            .unwrap_or(crate::runtime::tasks::DEFAULT_CONCURRENCY)
            .max(1)
    }
}

/// When a turn summarizes older history to stay inside the context window.
#[derive(Clone, Copy, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompactionConfig {
    /// Fraction of the model's context window (0 < f <= 1) at which a turn
    /// compacts; 0 turns automatic compaction off. Default 0.8.
    pub auto_fraction: Option<f64>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub input: f64,
    pub output: f64,
    /// Cache-hit input tokens; defaults to the input price.
    pub cached: Option<f64>,
    /// When this price took effect (RFC 3339); absent: from the beginning.
    #[serde(default, deserialize_with = "rfc3339")]
    pub since: Option<DateTime<Utc>>,
}

/// A model's prices over time, from either TOML form. Hand-written rather
/// than `#[serde(untagged)]` so a typo still gets serde's precise message
/// instead of "did not match any variant".
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Prices(pub Vec<Price>);

impl<'de> Deserialize<'de> for Prices {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct OneOrMany;
        impl<'de> serde::de::Visitor<'de> for OneOrMany {
            type Value = Prices;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a price table or an array of price tables")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Prices, A::Error> {
                Price::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(|price| Prices(vec![price]))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Prices, A::Error> {
                Vec::<Price>::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))
                    .map(Prices)
            }
        }
        deserializer.deserialize_any(OneOrMany)
    }
}

fn rfc3339<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<DateTime<Utc>>, D::Error> {
    let text = String::deserialize(d)?;
    DateTime::parse_from_rfc3339(&text)
        .map(|t| Some(t.with_timezone(&Utc)))
        .map_err(|_| {
            serde::de::Error::custom(format!(
                "since must be an RFC 3339 timestamp like 2026-01-01T00:00:00Z (got {text:?})"
            ))
        })
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderEntry {
    pub base_url: Option<String>,
    /// Name of the environment variable holding the key (never the key).
    pub api_key_env: Option<String>,
    #[serde(default)]
    pub models: Vec<String>,
    pub default_model: Option<String>,
    /// Seconds without a byte from the stream before the call fails
    /// (default 90; `CODEWHALE_PROVIDER_IDLE_TIMEOUT_SECS` overrides all).
    pub idle_timeout_secs: Option<u64>,
    /// Tokens the provider's models accept in one call (for automatic
    /// compaction); default: known per model, else 128k.
    pub context_window: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuntimeApiConfig {
    #[serde(default)]
    pub cors_origins: Vec<String>,
    /// Host names the server answers to besides the loopback names and the
    /// bind host.
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
    /// Days a paired device stays signed in without a request (default 30).
    pub device_session_days: Option<u32>,
}

pub const DEFAULT_DEVICE_SESSION_DAYS: u32 = 30;

impl Config {
    /// The MCP servers' own rules (`ServerEntry::check`).
    pub fn check_mcp(&self) -> Result<(), String> {
        self.mcp
            .servers
            .iter()
            .try_for_each(|(name, server)| server.check(name))
    }

    /// Rules serde cannot express.
    pub fn check(&self) -> Result<(), String> {
        self.check_mcp()?;
        if let Some(days) = self.runtime_api.device_session_days {
            if !(1..=365).contains(&days) {
                return Err(format!(
                    "runtime_api.device_session_days must be between 1 and 365 (got {days})"
                ));
            }
        }
        match self.compaction.auto_fraction {
            Some(f) if !(0.0..=1.0).contains(&f) => Err(format!(
                "compaction.auto_fraction must be between 0 (off) and 1 (got {f})"
            )),
            _ => Ok(()),
        }
    }

    pub fn load(home: &Path) -> Result<Self, RunError> {
        let path = home.join(CONFIG_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => toml::from_str::<Self>(&text)
                .map_err(|e| format!("{e}"))
                .and_then(|config| config.check().map(|()| config))
                .map_err(|e| RunError::Config(format!("{}: {e}", path.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(RunError::Config(format!(
                "cannot read {}: {e}",
                path.display()
            ))),
        }
    }
}
