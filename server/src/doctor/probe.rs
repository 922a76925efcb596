//! Whether the provider answers: one GET of `<base_url>/models`, without
//! the key, within a few seconds. Any HTTP answer (even 401 or 404) means
//! the endpoint is reachable; only no answer is "unreachable".

use serde::Serialize;
use std::time::{Duration, Instant};

pub const TIMEOUT: Duration = Duration::from_secs(3);

#[derive(Debug, Serialize)]
pub struct Reachability {
    /// ok, unreachable, skipped (--offline) or invalid_url.
    pub status: &'static str,
    pub url: String,
    pub http_status: Option<u16>,
    pub elapsed_ms: Option<u64>,
    pub detail: String,
}

pub fn skipped(base_url: &str) -> Reachability {
    Reachability {
        status: "skipped",
        url: models_url(base_url),
        http_status: None,
        elapsed_ms: None,
        detail: "not checked (--offline)".into(),
    }
}

pub async fn check(base_url: &str) -> Reachability {
    let url = models_url(base_url);
    let mut report = Reachability {
        status: "invalid_url",
        url: url.clone(),
        http_status: None,
        elapsed_ms: None,
        detail: "the base_url is not an http:// or https:// URL".into(),
    };
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return report;
    }
    crate::provider::client::install_tls();
    let client = match reqwest::Client::builder().timeout(TIMEOUT).build() {
        Ok(client) => client,
        Err(e) => {
            report.status = "unreachable";
            report.detail = format!("no HTTP client: {e}");
            return report;
        }
    };
    let started = Instant::now();
    let answer = client.get(&url).send().await;
    report.elapsed_ms = Some(started.elapsed().as_millis() as u64);
    match answer {
        Ok(response) => {
            report.status = "ok";
            report.http_status = Some(response.status().as_u16());
            report.detail = format!("answered HTTP {}", response.status().as_u16());
        }
        Err(e) => {
            report.status = "unreachable";
            report.detail = if e.is_timeout() {
                format!("no answer within {} s", TIMEOUT.as_secs())
            } else if e.is_connect() {
                "connection failed".into()
            } else {
                "the request failed".into()
            };
        }
    }
    report
}

fn models_url(base_url: &str) -> String {
    format!("{}/models", base_url.trim_end_matches('/'))
}
