//! Secrets: random values from the OS RNG, constant-time comparison, and the
//! runtime token, whose `Debug` never shows its value.

use crate::error::RunError;
use subtle::ConstantTimeEq;

pub use crate::random::random_secret;

/// Compares without an early exit on the first differing byte.
pub fn constant_time_eq(a: &str, b: &str) -> bool {
    a.len() == b.len() && bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

#[derive(Clone)]
pub struct RuntimeToken(String);

impl std::fmt::Debug for RuntimeToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RuntimeToken(<redacted>)")
    }
}

impl RuntimeToken {
    /// `--auth-token`, then `CODEWHALE_RUNTIME_TOKEN`, then
    /// `DEEPSEEK_RUNTIME_TOKEN`; blank values are ignored. Without any, a
    /// token is generated for this process and never shown.
    pub fn resolve(flag: Option<String>) -> Result<Self, RunError> {
        Ok(Self::explicit(flag)?.unwrap_or_else(|| Self(random_secret("cwrt_", 32))))
    }

    /// The token the user gave (flag, then the environment), if any.
    pub fn explicit(flag: Option<String>) -> Result<Option<Self>, RunError> {
        flag.into_iter()
            .chain(std::env::var("CODEWHALE_RUNTIME_TOKEN").ok())
            .chain(std::env::var("DEEPSEEK_RUNTIME_TOKEN").ok())
            .map(|t| t.trim().to_string())
            .find(|t| !t.is_empty())
            .map(Self::from_configured)
            .transpose()
    }

    /// The value, for a client presenting it (`codewhale pair`).
    pub fn expose(&self) -> &str {
        &self.0
    }

    fn from_configured(token: String) -> Result<Self, RunError> {
        if token.len() < 16 {
            return Err(RunError::Config(
                "the runtime token must be at least 16 characters".into(),
            ));
        }
        if !token.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(RunError::Config(
                "the runtime token may only contain visible ASCII characters".into(),
            ));
        }
        Ok(Self(token))
    }

    pub fn matches(&self, presented: &str) -> bool {
        constant_time_eq(&self.0, presented)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_random_and_prefixed() {
        let a = random_secret("cwwb_", 32);
        let b = random_secret("cwwb_", 32);
        assert_ne!(a, b);
        assert_eq!(a.len(), 5 + 64);
        assert!(a.starts_with("cwwb_"));
    }

    #[test]
    fn comparison_requires_exact_match() {
        assert!(constant_time_eq("abc", "abc"));
        assert!(!constant_time_eq("abc", "abd"));
        assert!(!constant_time_eq("abc", "abcd"));
    }

    #[test]
    fn token_debug_is_redacted() {
        let token = RuntimeToken::from_configured("super-secret-token-value".into()).unwrap();
        assert!(!format!("{token:?}").contains("super-secret"));
    }

    #[test]
    fn configured_tokens_are_validated() {
        assert!(RuntimeToken::from_configured("short".into()).is_err());
        assert!(RuntimeToken::from_configured("has a space in it ok".into()).is_err());
        assert!(RuntimeToken::from_configured("a-long-enough-token".into()).is_ok());
    }
}
