//! `$CODEWHALE_HOME/config.toml`. Absent is fine; malformed is an error that
//! names the file, never a silent default.

use crate::error::RunError;
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
    #[serde(default)]
    pub pricing: BTreeMap<String, Price>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub input: f64,
    pub output: f64,
    /// Cache-hit input tokens; defaults to the input price.
    pub cached: Option<f64>,
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
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuntimeApiConfig {
    #[serde(default)]
    pub cors_origins: Vec<String>,
}

impl Config {
    pub fn load(home: &Path) -> Result<Self, RunError> {
        let path = home.join(CONFIG_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => toml::from_str(&text)
                .map_err(|e| RunError::Config(format!("{}: {e}", path.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(RunError::Config(format!(
                "cannot read {}: {e}",
                path.display()
            ))),
        }
    }
}
