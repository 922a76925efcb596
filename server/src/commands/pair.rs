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

/// An HTTP client; for `https` it also trusts the certificate
/// `--tls self-signed` generated in this `$CODEWHALE_HOME`.
fn client(base: &str) -> Result<reqwest::Client, RunError> {
    let mut builder = reqwest::Client::builder().use_preconfigured_tls(tls_config()?);
    if base.starts_with("http://") {
        builder = builder.https_only(false);
    }
    builder
        .build()
        .map_err(|e| RunError::Config(format!("cannot start an HTTP client: {e}")))
}

fn tls_config() -> Result<rustls::ClientConfig, RunError> {
    let mut roots = rustls::RootCertStore::empty();
    let home = home::resolve()?;
    let generated = home.join("tls").join("self-signed-cert.pem");
    if generated.exists() {
        use rustls::pki_types::{pem::PemObject, CertificateDer};
        for cert in CertificateDer::pem_file_iter(&generated)
            .map_err(|e| RunError::Config(format!("cannot read {}: {e}", generated.display())))?
            .flatten()
        {
            let _ = roots.add(cert);
        }
    }
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| RunError::Config(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth())
}
