//! The environment every child process gets: the server's own minus
//! anything that is, or unlocks, a credential. Commands the model runs,
//! git, and the browser opener all start from `current()`, so a secret the
//! server was started with (its runtime token, provider keys, cloud and
//! package-registry tokens, the SSH agent) never reaches them.

use std::{
    collections::BTreeSet,
    ffi::OsString,
    sync::{PoisonError, RwLock},
};

/// Names configured as holding provider keys (`api_key_env`), which may
/// follow no naming convention.
static CONFIGURED: RwLock<BTreeSet<String>> = RwLock::new(BTreeSet::new());

/// Whole names that hold or unlock credentials without a telling suffix.
/// `SSH_AUTH_SOCK` lets any process sign in as the user wherever their SSH
/// keys work (push, deploy), with no prompt: a credential in all but name.
const EXACT: &[&str] = &[
    "AWS_ACCESS_KEY_ID",
    "SSH_AUTH_SOCK",
    "GPG_AGENT_INFO",
    "DEEPSEEK_RUNTIME_TOKEN",
];

/// A name is secret when it is one of these words or ends in `_<word>`.
const SUFFIXES: &[&str] = &[
    "API_KEY",
    "APIKEY",
    "TOKEN",
    "SECRET",
    "SECRET_KEY",
    "PASSWORD",
    "PASSWD",
    "CREDENTIALS",
    "PRIVATE_KEY",
    "ACCESS_KEY",
];

/// Adds names that hold secrets in this server's configuration.
pub fn add_secret_names(names: impl IntoIterator<Item = String>) {
    let mut configured = CONFIGURED.write().unwrap_or_else(PoisonError::into_inner);
    configured.extend(names.into_iter().map(|n| n.to_ascii_uppercase()));
}

/// True when a variable of this name must not reach a child process.
/// Case-insensitive: `github_token` is as secret as `GITHUB_TOKEN`.
pub fn is_secret(name: &str, configured: &BTreeSet<String>) -> bool {
    let upper = name.to_ascii_uppercase();
    upper.starts_with("CODEWHALE_")
        || upper.starts_with("SECRET_")
        || upper.contains("_SECRET_")
        || EXACT.contains(&upper.as_str())
        || SUFFIXES.iter().any(|word| {
            upper == *word
                || upper
                    .strip_suffix(word)
                    .is_some_and(|rest| rest.ends_with('_'))
        })
        || configured.contains(&upper)
}

/// `vars` without the secret ones. Names that are not UTF-8 are dropped
/// too: they cannot be judged, and no program needs them.
pub fn scrub(
    vars: impl IntoIterator<Item = (OsString, OsString)>,
    configured: &BTreeSet<String>,
) -> Vec<(OsString, OsString)> {
    vars.into_iter()
        .filter(|(name, _)| name.to_str().is_some_and(|n| !is_secret(n, configured)))
        .collect()
}

/// The server's environment, scrubbed.
pub fn current() -> Vec<(OsString, OsString)> {
    let configured = CONFIGURED.read().unwrap_or_else(PoisonError::into_inner);
    scrub(std::env::vars_os(), &configured)
}

/// Gives `command` exactly the scrubbed environment (plus whatever the
/// caller sets afterwards).
pub fn apply(command: &mut std::process::Command) {
    command.env_clear().envs(current());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(vars: &[(&str, &str)], configured: &[&str]) -> Vec<String> {
        let configured = configured.iter().map(|c| c.to_ascii_uppercase()).collect();
        let vars = vars.iter().map(|(n, v)| (n.into(), v.into()));
        scrub(vars, &configured)
            .into_iter()
            .map(|(n, _)| n.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn secrets_go_and_ordinary_variables_stay() {
        let secret = [
            "CODEWHALE_RUNTIME_TOKEN",
            "codewhale_home",
            "DEEPSEEK_RUNTIME_TOKEN",
            "OPENAI_API_KEY",
            "anthropic_api_key",
            "MY_APIKEY",
            "GITHUB_TOKEN",
            "GH_TOKEN",
            "NPM_TOKEN",
            "HF_TOKEN",
            "AWS_ACCESS_KEY_ID",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_SESSION_TOKEN",
            "DB_PASSWORD",
            "SMTP_PASSWD",
            "AZURE_CLIENT_SECRET",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "SECRET_KEY_BASE",
            "SSH_AUTH_SOCK",
            "TOKEN",
            "MY_PROVIDER_KEY",
        ];
        let ordinary = [
            "PATH",
            "HOME",
            "LANG",
            "LC_ALL",
            "TERM",
            "USER",
            "SHELL",
            "DISPLAY",
            "XDG_RUNTIME_DIR",
            "TOKENIZERS_PARALLELISM",
            "KEYBOARD",
            "RUST_LOG",
        ];
        let vars: Vec<(&str, &str)> = secret
            .iter()
            .chain(&ordinary)
            .map(|n| (*n, "value"))
            .collect();
        assert_eq!(names(&vars, &["my_provider_key"]), ordinary);
    }

    #[test]
    fn non_utf8_names_are_dropped() {
        use std::os::unix::ffi::OsStringExt;
        let odd = OsString::from_vec(b"X_TOKEN\xff".to_vec());
        let kept = scrub([(odd, "v".into())], &BTreeSet::new());
        assert!(kept.is_empty());
    }
}
