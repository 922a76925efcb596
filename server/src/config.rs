//! `$CODEWHALE_HOME/config.toml`. Absent is fine; malformed is an error that
//! names the file, never a silent default.

use crate::error::RunError;
use serde::Deserialize;
use std::path::Path;

pub const CONFIG_FILE: &str = "config.toml";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub runtime_api: RuntimeApiConfig,
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
