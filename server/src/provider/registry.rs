//! Which providers exist and which one a turn uses. Keys are read from the
//! environment at resolution time and never leave this module except into
//! the Authorization header of a provider request.

use crate::{
    config::{Config, ProviderEntry},
    error::ApiError,
};
use std::collections::BTreeMap;

const NOT_CONFIGURED: &str =
    "no model provider is configured: set DEEPSEEK_API_KEY or add a provider to config.toml";

#[derive(Clone, Debug)]
struct Provider {
    base_url: String,
    /// `None`: the endpoint needs no key (a local server).
    api_key_env: Option<String>,
    models: Vec<String>,
    default_model: Option<String>,
}

/// A provider chosen for one turn.
#[derive(Clone)]
pub struct ResolvedProvider {
    pub id: String,
    pub base_url: String,
    pub model: String,
    pub(super) api_key: Option<String>,
}

impl std::fmt::Debug for ResolvedProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResolvedProvider")
            .field("id", &self.id)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

#[derive(Clone, Debug)]
pub struct Providers {
    providers: BTreeMap<String, Provider>,
    default: Option<String>,
}

impl Providers {
    pub fn from_config(config: &Config) -> Self {
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let mut providers = BTreeMap::new();
        providers.insert(
            "deepseek".to_string(),
            Provider {
                base_url: env("DEEPSEEK_BASE_URL")
                    .unwrap_or_else(|| "https://api.deepseek.com".into()),
                api_key_env: Some("DEEPSEEK_API_KEY".into()),
                models: vec!["deepseek-chat".into(), "deepseek-reasoner".into()],
                default_model: Some("deepseek-chat".into()),
            },
        );
        providers.insert(
            "openai".to_string(),
            Provider {
                base_url: env("OPENAI_BASE_URL")
                    .unwrap_or_else(|| "https://api.openai.com/v1".into()),
                api_key_env: Some("OPENAI_API_KEY".into()),
                models: vec!["gpt-4.1-mini".into(), "gpt-4.1".into()],
                default_model: Some("gpt-4.1-mini".into()),
            },
        );
        for (id, entry) in &config.providers {
            let merged = merge(providers.get(id), entry);
            providers.insert(id.clone(), merged);
        }
        Self {
            providers,
            default: config.default_provider.clone(),
        }
    }

    /// The environment variables that hold provider keys.
    pub fn key_variables(&self) -> Vec<String> {
        self.providers
            .values()
            .filter_map(|p| p.api_key_env.clone())
            .collect()
    }

    /// The provider and model for a turn: the thread's provider (or the
    /// configured default, or the first usable one) and model (or the
    /// provider's default). Errors say what to configure.
    pub fn resolve(
        &self,
        provider: Option<&str>,
        model: Option<&str>,
    ) -> Result<ResolvedProvider, ApiError> {
        let id = match provider.or(self.default.as_deref()) {
            Some(id) => id.to_string(),
            None => self
                .providers
                .iter()
                .find(|(_, p)| usable(p))
                .map(|(id, _)| id.clone())
                .ok_or_else(|| ApiError::bad_request(NOT_CONFIGURED))?,
        };
        let entry = self.providers.get(&id).ok_or_else(|| {
            ApiError::bad_request(format!(
                "unknown model provider {id:?}; add [providers.{id}] to config.toml"
            ))
        })?;
        if !(entry.base_url.starts_with("http://") || entry.base_url.starts_with("https://")) {
            return Err(ApiError::bad_request(format!(
                "provider {id:?} needs a base_url (http:// or https://) in config.toml"
            )));
        }
        let api_key = match &entry.api_key_env {
            Some(var) => Some(
                std::env::var(var)
                    .ok()
                    .filter(|k| !k.trim().is_empty())
                    .ok_or_else(|| {
                        ApiError::bad_request(format!(
                            "provider {id:?} needs an API key: set {var}"
                        ))
                    })?,
            ),
            None => None,
        };
        let model = model
            .map(str::to_string)
            .or_else(|| entry.default_model.clone())
            .or_else(|| entry.models.first().cloned())
            .ok_or_else(|| {
                ApiError::bad_request(format!(
                    "provider {id:?} has no model: set default_model in config.toml"
                ))
            })?;
        Ok(ResolvedProvider {
            id,
            base_url: entry.base_url.trim_end_matches('/').to_string(),
            model,
            api_key,
        })
    }
}

fn usable(provider: &Provider) -> bool {
    match &provider.api_key_env {
        Some(var) => std::env::var(var).is_ok_and(|k| !k.trim().is_empty()),
        None => true,
    }
}

fn merge(base: Option<&Provider>, entry: &ProviderEntry) -> Provider {
    Provider {
        base_url: entry
            .base_url
            .clone()
            .or_else(|| base.map(|b| b.base_url.clone()))
            .unwrap_or_default(),
        api_key_env: entry
            .api_key_env
            .clone()
            .or_else(|| base.and_then(|b| b.api_key_env.clone())),
        models: if entry.models.is_empty() {
            base.map(|b| b.models.clone()).unwrap_or_default()
        } else {
            entry.models.clone()
        },
        default_model: entry
            .default_model
            .clone()
            .or_else(|| base.and_then(|b| b.default_model.clone())),
    }
}
