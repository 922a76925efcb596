//! `codewhale pair`: asks the running server for a one-time pairing link
//! and prints it with its QR code.

use crate::{
    cli::PairArgs, error::RunError, home, http::auth::RuntimeToken, http::pairing::qr_terminal,
};
use protocol::{CreatePairing, ErrorEnvelope, PairingCreated};

pub async fn run(args: PairArgs) -> Result<(), RunError> {
    let token = RuntimeToken::explicit(args.auth_token)?.ok_or_else(|| {
        RunError::Config(
            "pairing needs the server's runtime token: pass --auth-token or set CODEWHALE_RUNTIME_TOKEN"
                .into(),
        )
    })?;
    let base = args.url.trim_end_matches('/');
    let url = reqwest::Url::parse(base)
        .map_err(|e| RunError::Config(format!("--url {base:?} is not a URL: {e}")))?;
    let host = url.host_str().unwrap_or_default();
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let loopback = host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    if url.scheme() == "http" && !loopback {
        eprintln!(
            "codewhale: warning: {base} is plain HTTP on the network; the runtime token travels unencrypted. \
             Run `codewhale pair` on the computer running codewhale (the default --url)."
        );
    }
    let client = client(base)?;
    let request = CreatePairing {
        ttl_seconds: Some(args.ttl.as_secs()),
        label: args.label,
    };
    let reply = client
        .post(format!("{base}/v1/devices/pairings"))
        .bearer_auth(token.expose())
        .json(&request)
        .send()
        .await
        .map_err(|e| RunError::Config(format!("cannot reach codewhale at {base}: {e}")))?;
    let status = reply.status();
    if !status.is_success() {
        let message = reply
            .json::<ErrorEnvelope>()
            .await
            .map(|e| e.error.message)
            .unwrap_or_else(|_| status.to_string());
        return Err(RunError::Config(format!("the server refused: {message}")));
    }
    let pairing: PairingCreated = reply
        .json()
        .await
        .map_err(|e| RunError::Config(format!("unexpected reply from {base}: {e}")))?;
    #[allow(clippy::print_stdout)]
    {
        println!("{}", pairing.url);
    }
    eprintln!("{}", qr_terminal(&pairing.url));
    eprintln!(
        "Scan it with the phone's camera. It works once, until {}.",
        pairing.expires_at
    );
    if let Some(fingerprint) = &pairing.tls_fingerprint {
        eprintln!("The phone should show this certificate fingerprint (SHA-256):\n  {fingerprint}");
    }
    Ok(())
}

/// An HTTP client trusting the system's roots and, besides them, the
/// certificate `--tls self-signed` generated in this `$CODEWHALE_HOME`.
fn client(base: &str) -> Result<reqwest::Client, RunError> {
    crate::provider::install_tls();
    let mut builder = reqwest::Client::builder().timeout(std::time::Duration::from_secs(15));
    let generated = home::resolve()?.join("tls").join("self-signed-cert.pem");
    if base.starts_with("https://") && generated.exists() {
        let pem = std::fs::read(&generated)
            .map_err(|e| RunError::Config(format!("cannot read {}: {e}", generated.display())))?;
        let certs = reqwest::Certificate::from_pem_bundle(&pem)
            .map_err(|e| RunError::Config(format!("cannot read {}: {e}", generated.display())))?;
        builder = builder.tls_certs_merge(certs);
    }
    builder
        .build()
        .map_err(|e| RunError::Config(format!("cannot start an HTTP client: {e}")))
}
