//! Which providers exist and which one a turn uses. Keys are read from the
//! environment at resolution time and never leave this module except into
//! the Authorization header of a provider request.

use crate::{
    config::{Config, ProviderEntry},
    runtime::error::RuntimeError,
};
use std::{collections::BTreeMap, time::Duration};

/// Overrides every provider's `idle_timeout_secs` (read at each turn).
pub const IDLE_TIMEOUT_ENV: &str = "CODEWHALE_PROVIDER_IDLE_TIMEOUT_SECS";
const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(90);

const NOT_CONFIGURED: &str =
    "no model provider is configured: set DEEPSEEK_API_KEY or add a provider to config.toml";

#[derive(Clone, Debug)]
struct Provider {
    base_url: String,
    /// `None`: the endpoint needs no key (a local server).
    api_key_env: Option<String>,
    models: Vec<String>,
    default_model: Option<String>,
    idle_timeout_secs: Option<u64>,
    context_window: Option<u64>,
}

/// A provider chosen for one turn.
#[derive(Clone)]
pub struct ResolvedProvider {
    pub id: String,
    pub base_url: String,
    pub model: String,
    /// How long the stream may stay silent before the call fails.
    pub idle_timeout: Duration,
    /// Configured context window (tokens), if any.
    pub context_window: Option<u64>,
    pub(super) api_key: Option<String>,
}

impl std::fmt::Debug for ResolvedProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResolvedProvider")
            .field("id", &self.id)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("idle_timeout", &self.idle_timeout)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

/// What `Providers::default_summary` tells.
#[derive(Clone, Debug)]
pub struct ProviderSummary {
    pub id: String,
    pub base_url: String,
    pub api_key_env: Option<String>,
    pub key_set: bool,
    pub default_model: Option<String>,
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
                idle_timeout_secs: None,
                context_window: None,
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
                idle_timeout_secs: None,
                context_window: None,
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

    /// Every provider with its models, and whether its key is set.
    pub fn catalog(&self) -> Vec<protocol::ProviderModels> {
        self.providers
            .iter()
            .map(|(id, p)| protocol::ProviderModels {
                id: id.clone(),
                models: p.models.clone(),
                default_model: p.default_model.clone(),
                ready: usable(p),
                key_env: p.api_key_env.clone(),
            })
            .collect()
    }

    /// The provider a thread naming none would use (as `resolve` picks it),
    /// described for `doctor`: never the key, only whether it is set.
    pub fn default_summary(&self) -> Option<ProviderSummary> {
        let id = match &self.default {
            Some(id) => id.clone(),
            None => self
                .providers
                .iter()
                .find(|(_, p)| usable(p))
                .map(|(id, _)| id.clone())
                .unwrap_or_else(|| "deepseek".into()),
        };
        let p = self.providers.get(&id)?;
        Some(ProviderSummary {
            base_url: p.base_url.trim_end_matches('/').to_string(),
            api_key_env: p.api_key_env.clone(),
            key_set: p.api_key_env.is_some() && usable(p),
            default_model: p
                .default_model
                .clone()
                .or_else(|| p.models.first().cloned()),
            id,
        })
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
    /// provider's default). Errors say what to configure: they are
    /// conflicts with this server's configuration (409), not malformed
    /// requests, since the same request works once config.toml has it.
    pub fn resolve(
        &self,
        provider: Option<&str>,
        model: Option<&str>,
    ) -> Result<ResolvedProvider, RuntimeError> {
        let id = match provider.or(self.default.as_deref()) {
            Some(id) => id.to_string(),
            None => self
                .providers
                .iter()
                .find(|(_, p)| usable(p))
                .map(|(id, _)| id.clone())
                .ok_or_else(|| RuntimeError::Conflict(NOT_CONFIGURED.into()))?,
        };
        let entry = self.providers.get(&id).ok_or_else(|| {
            RuntimeError::Conflict(format!(
                "unknown model provider {id:?}; add [providers.{id}] to config.toml"
            ))
        })?;
        if !(entry.base_url.starts_with("http://") || entry.base_url.starts_with("https://")) {
            return Err(RuntimeError::Conflict(format!(
                "provider {id:?} needs a base_url (http:// or https://) in config.toml"
            )));
        }
        let api_key = match &entry.api_key_env {
            Some(var) => Some(
                std::env::var(var)
                    .ok()
                    .filter(|k| !k.trim().is_empty())
                    .ok_or_else(|| {
                        RuntimeError::Conflict(format!(
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
                RuntimeError::Conflict(format!(
                    "provider {id:?} has no model: set default_model in config.toml"
                ))
            })?;
        let idle_timeout = idle_timeout(
            &id,
            entry.idle_timeout_secs,
            std::env::var(IDLE_TIMEOUT_ENV).ok().as_deref(),
        )
        .map_err(RuntimeError::Conflict)?;
        Ok(ResolvedProvider {
            id,
            base_url: entry.base_url.trim_end_matches('/').to_string(),
            model,
            idle_timeout,
            context_window: entry.context_window,
            api_key,
        })
    }
}

/// The environment's override, else the provider's setting, else 90 s. A
/// zero or unreadable value is refused rather than silently replaced.
fn idle_timeout(id: &str, configured: Option<u64>, env: Option<&str>) -> Result<Duration, String> {
    let env = env.map(str::trim).filter(|v| !v.is_empty());
    let (seconds, source) = match (env, configured) {
        (Some(text), _) => (
            text.parse::<u64>().map_err(|_| {
                format!("{IDLE_TIMEOUT_ENV} must be a whole number of seconds (got {text:?})")
            })?,
            IDLE_TIMEOUT_ENV.to_string(),
        ),
        (None, Some(seconds)) => (seconds, format!("idle_timeout_secs of provider {id:?}")),
        (None, None) => return Ok(DEFAULT_IDLE_TIMEOUT),
    };
    if seconds == 0 {
        return Err(format!("{source} must be at least 1 second"));
    }
    Ok(Duration::from_secs(seconds))
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
        idle_timeout_secs: entry
            .idle_timeout_secs
            .or_else(|| base.and_then(|b| b.idle_timeout_secs)),
        context_window: entry
            .context_window
            .or_else(|| base.and_then(|b| b.context_window)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_timeout_default_config_and_override() {
        let secs = |d: Result<Duration, String>| d.map(|d| d.as_secs());
        assert_eq!(secs(idle_timeout("p", None, None)), Ok(90));
        assert_eq!(secs(idle_timeout("p", Some(5), None)), Ok(5));
        assert_eq!(secs(idle_timeout("p", Some(5), Some(" 7 "))), Ok(7));
        assert_eq!(secs(idle_timeout("p", None, Some(""))), Ok(90));
        let zero = idle_timeout("p", Some(0), None).unwrap_err();
        assert!(
            zero.contains("idle_timeout_secs of provider \"p\""),
            "{zero}"
        );
        let bad = idle_timeout("p", Some(5), Some("soon")).unwrap_err();
        assert!(
            bad.contains(IDLE_TIMEOUT_ENV) && bad.contains("soon"),
            "{bad}"
        );
    }

    #[test]
    fn idle_timeout_comes_from_config() {
        let config: Config = toml::from_str(
            "[providers.local]\nbase_url = \"http://127.0.0.1:1\"\nmodels = [\"m\"]\nidle_timeout_secs = 3\n",
        )
        .unwrap();
        let providers = Providers::from_config(&config);
        let resolved = providers.resolve(Some("local"), None).unwrap();
        // The environment override is unset in the test process.
        if std::env::var(IDLE_TIMEOUT_ENV).is_err() {
            assert_eq!(resolved.idle_timeout, Duration::from_secs(3));
        }
    }
}
