//! The CORS allow-list: built-in dev origins plus `--cors-origin`,
//! `CODEWHALE_CORS_ORIGINS` / `DEEPSEEK_CORS_ORIGINS` and config.toml. Never
//! a wildcard; preflights advertise exactly the headers clients need.

use crate::error::RunError;
use axum::http::{header, HeaderName, HeaderValue, Method};
use tower_http::cors::{AllowOrigin, CorsLayer};

pub const BUILT_IN: [&str; 5] = [
    "http://localhost:3000",
    "http://127.0.0.1:3000",
    "http://localhost:1420",
    "http://127.0.0.1:1420",
    "tauri://localhost",
];

/// Every configured origin, validated and deduplicated.
pub fn origins(flags: &[String], config: &[String]) -> Result<Vec<String>, RunError> {
    let env = ["CODEWHALE_CORS_ORIGINS", "DEEPSEEK_CORS_ORIGINS"]
        .iter()
        .filter_map(|name| std::env::var(name).ok())
        .flat_map(|list| list.split(',').map(str::to_string).collect::<Vec<_>>());
    let mut all: Vec<String> = Vec::new();
    let extra = flags
        .iter()
        .cloned()
        .chain(env)
        .chain(config.iter().cloned());
    for origin in BUILT_IN.iter().map(|o| o.to_string()).chain(extra) {
        let origin = origin.trim().trim_end_matches('/').to_string();
        if origin.is_empty() {
            continue;
        }
        validate(&origin)?;
        if !all.contains(&origin) {
            all.push(origin);
        }
    }
    Ok(all)
}

fn validate(origin: &str) -> Result<(), RunError> {
    let bad = |why: &str| RunError::Config(format!("CORS origin {origin:?} {why}"));
    if origin.contains('*') {
        return Err(bad("is a wildcard; list exact origins instead"));
    }
    let (scheme, rest) = origin
        .split_once("://")
        .ok_or_else(|| bad("needs a scheme, like http://"))?;
    if scheme.is_empty()
        || rest.is_empty()
        || rest.contains('/')
        || rest.contains('?')
        || rest.contains('#')
    {
        return Err(bad("must be scheme://host[:port] with no path"));
    }
    HeaderValue::from_str(origin).map_err(|_| bad("is not a valid header value"))?;
    Ok(())
}

pub fn layer(origins: &[String]) -> CorsLayer {
    // A predicate over a shared list, not `AllowOrigin::list`: the layer is
    // cloned on every request, and a list is cloned with it.
    let origins: std::sync::Arc<[HeaderValue]> = origins
        .iter()
        .filter_map(|o| HeaderValue::from_str(o).ok())
        .collect();
    CorsLayer::new()
        .allow_origin(AllowOrigin::predicate(move |origin, _| {
            origins.contains(origin)
        }))
        .allow_methods([
            Method::GET,
            Method::POST,
            Method::PATCH,
            Method::DELETE,
            Method::OPTIONS,
        ])
        .allow_headers([
            header::AUTHORIZATION,
            header::CONTENT_TYPE,
            header::ACCEPT,
            HeaderName::from_static("x-codewhale-runtime-token"),
            HeaderName::from_static("x-deepseek-runtime-token"),
        ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_ins_and_extras_are_kept_without_duplicates() {
        let all = origins(
            &[
                "http://localhost:5173/".into(),
                "http://localhost:3000".into(),
            ],
            &[],
        )
        .unwrap();
        assert_eq!(all.len(), BUILT_IN.len() + 1);
        assert!(all.contains(&"http://localhost:5173".to_string()));
    }

    #[test]
    fn wildcards_and_paths_are_refused() {
        for bad in [
            "*",
            "http://*.example.com",
            "http://a.example/path",
            "localhost:3000",
        ] {
            assert!(origins(&[bad.into()], &[]).is_err(), "{bad}");
        }
    }
}
