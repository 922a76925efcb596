//! HTTPS for `--mobile`: a certificate the user brings (`--tls-cert`,
//! `--tls-key`, e.g. from mkcert or `tailscale cert`) or one generated once
//! with rcgen and kept in `$CODEWHALE_HOME/tls` (`--tls self-signed`).
//! Browsers allow notifications and installing only in a secure context.

use crate::error::RunError;
use axum_server::tls_rustls::RustlsConfig;
use rustls::pki_types::{pem::PemObject, CertificateDer, PrivateKeyDer};
use sha2::{Digest, Sha256};
use std::{
    net::IpAddr,
    path::{Path, PathBuf},
    sync::Arc,
};

/// Where the certificate comes from.
pub enum TlsSource {
    Files { cert: PathBuf, key: PathBuf },
    SelfSigned,
}

pub struct Tls {
    pub config: RustlsConfig,
    /// SHA-256 of the leaf certificate (`AB:CD:…`), to compare on the phone.
    pub fingerprint: String,
    /// True for a certificate codewhale generated (browsers will warn).
    pub self_signed: bool,
}

const CERT_FILE: &str = "self-signed-cert.pem";
const KEY_FILE: &str = "self-signed-key.pem";

impl Tls {
    pub fn load(source: TlsSource, home: &Path, names: &[String]) -> Result<Tls, RunError> {
        let (cert, key, self_signed) = match source {
            TlsSource::Files { cert, key } => (cert, key, false),
            TlsSource::SelfSigned => {
                let (cert, key) = self_signed(home, names)?;
                (cert, key, true)
            }
        };
        let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(&cert)
            .and_then(|certs| certs.collect())
            .map_err(|e| config_error(&cert, &e.to_string()))?;
        let Some(leaf) = chain.first() else {
            return Err(config_error(&cert, "it holds no certificate"));
        };
        let fingerprint = fingerprint(leaf);
        let key =
            PrivateKeyDer::from_pem_file(&key).map_err(|e| config_error(&key, &e.to_string()))?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .and_then(|builder| builder.with_no_client_auth().with_single_cert(chain, key))
            .map_err(|e| RunError::Config(format!("cannot use the TLS certificate: {e}")))?;
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(Tls {
            config: RustlsConfig::from_config(Arc::new(config)),
            fingerprint,
            self_signed,
        })
    }
}

fn config_error(path: &Path, why: &str) -> RunError {
    RunError::Config(format!("cannot read {}: {why}", path.display()))
}

/// `AB:CD:…`, the way browsers show certificate fingerprints.
pub fn fingerprint(cert: &CertificateDer<'_>) -> String {
    Sha256::digest(cert.as_ref())
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(":")
}

/// The generated certificate and key, made on first use. Its names are
/// loopback, this machine's name and addresses, and the configured names;
/// a name that appears later needs the files deleted (they are regenerated).
fn self_signed(home: &Path, names: &[String]) -> Result<(PathBuf, PathBuf), RunError> {
    let dir = home.join("tls");
    let (cert, key) = (dir.join(CERT_FILE), dir.join(KEY_FILE));
    if cert.exists() && key.exists() {
        return Ok((cert, key));
    }
    let io = |e: std::io::Error| RunError::Config(format!("cannot write {}: {e}", dir.display()));
    std::fs::create_dir_all(&dir).map_err(io)?;
    let mut subject_names: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
    if let Ok(host) = nix::unistd::gethostname() {
        if let Some(host) = host.to_str() {
            subject_names.push(host.to_string());
        }
    }
    subject_names.extend(
        super::lan::interface_addresses()
            .iter()
            .map(IpAddr::to_string),
    );
    subject_names.extend(names.iter().cloned());
    subject_names.sort();
    subject_names.dedup();
    let generated = rcgen::generate_simple_self_signed(subject_names)
        .map_err(|e| RunError::Config(format!("cannot generate a TLS certificate: {e}")))?;
    write_private(&key, generated.signing_key.serialize_pem().as_bytes()).map_err(io)?;
    std::fs::write(&cert, generated.cert.pem()).map_err(io)?;
    Ok((cert, key))
}

/// Written 0600: the key must not be readable by other local users.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::{io::Write, os::unix::fs::OpenOptionsExt};
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    // `mode` only applies to a file it creates.
    file.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
    file.write_all(bytes)
}
