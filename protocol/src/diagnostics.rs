//! `GET /v1/diagnostics/config` (and `codewhale diagnostics config`): where
//! the configuration comes from, which layer set each key, and what is
//! wrong with it. Never a value or a credential: keys, layers, line
//! numbers, and messages with quoted text removed.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ConfigDiagnostics {
    /// Lowest first: built-in defaults, then `config.toml`, then the
    /// process environment.
    pub layers: Vec<ConfigLayer>,
    /// Every key a layer sets, with the layer that set it.
    pub keys: Vec<ConfigKey>,
    pub problems: Vec<ConfigProblem>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ConfigLayer {
    /// `defaults`, `user` or `environment`.
    pub name: String,
    /// `built-in`, the file's path, or `process environment`.
    pub source: String,
    pub present: bool,
    /// Keys it sets.
    pub keys: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ConfigKey {
    /// Dotted, with `[n]` for arrays of tables; an environment variable
    /// as `env.NAME`.
    pub key: String,
    /// The layer that set it.
    pub set_by: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ConfigProblem {
    pub layer: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// What is wrong, without the values (quoted text becomes `"…"`).
    pub message: String,
}
