use serde::{Deserialize, Serialize};

/// A configured provider and its models, for pickers. `ready` is false
/// when its key variable is not set.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ProviderModels {
    pub id: String,
    pub models: Vec<String>,
    pub default_model: Option<String>,
    pub ready: bool,
    /// The environment variable its key comes from (never the key).
    pub key_env: Option<String>,
}
