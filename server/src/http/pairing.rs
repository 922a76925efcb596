//! Pairing links: the URL a phone opens once, and its QR code. The rules
//! (lifetime, single use) are the runtime's (`runtime::devices`); this
//! module only knows how this server is reached.

use crate::runtime::{error::RuntimeError, Runtime};
use protocol::{CreatePairing, PairingCreated};
use qrcode::{render::svg, render::unicode, EcLevel, QrCode};
use std::time::Duration;

/// The path a pairing capability travels in (consumed on arrival).
pub const PAIR_PATH: &str = "/__codewhale/pair/";

/// How phones reach this server, fixed at start in `--mobile` mode.
pub struct PairingLinks {
    /// `http(s)://<LAN address>:<port>`: what pairing URLs start with.
    pub base_url: String,
    /// SHA-256 of a self-signed certificate, shown beside the QR code.
    pub tls_fingerprint: Option<String>,
    /// A device session ends after this many days without a request.
    pub session_days: u32,
}

impl PairingLinks {
    /// Mints a one-time link (409 when this server pairs no phones). Only
    /// the computer may (`Viewer::is_computer`): a lost phone's session must
    /// not be able to outlive its revocation through a second pairing.
    pub fn create(
        links: Option<&PairingLinks>,
        runtime: &Runtime,
        by_computer: bool,
        request: CreatePairing,
    ) -> Result<PairingCreated, RuntimeError> {
        if !by_computer {
            return Err(RuntimeError::Forbidden(
                "a paired device cannot pair others; use the computer running codewhale".into(),
            ));
        }
        let Some(links) = links else {
            return Err(RuntimeError::Conflict(
                "this server does not pair phones: start it with --mobile".into(),
            ));
        };
        let minted = runtime
            .devices()
            .mint(request.ttl_seconds.map(Duration::from_secs), request.label)?;
        let url = format!("{}{PAIR_PATH}{}", links.base_url, minted.capability);
        Ok(PairingCreated {
            qr_svg: qr_svg(&url),
            url,
            expires_at: minted.expires_at,
            label: minted.label,
            tls_fingerprint: links.tls_fingerprint.clone(),
        })
    }
}

fn code(url: &str) -> Option<QrCode> {
    QrCode::with_error_correction_level(url.as_bytes(), EcLevel::M).ok()
}

/// The QR code as an SVG document (black on white, with a quiet zone).
pub fn qr_svg(url: &str) -> String {
    code(url)
        .map(|code| {
            code.render::<svg::Color<'_>>()
                .min_dimensions(240, 240)
                .dark_color(svg::Color("#000000"))
                .light_color(svg::Color("#ffffff"))
                .build()
        })
        .unwrap_or_default()
}

/// The QR code for a terminal: two rows per line, so it stays square.
pub fn qr_terminal(url: &str) -> String {
    code(url)
        .map(|code| {
            code.render::<unicode::Dense1x2>()
                .dark_color(unicode::Dense1x2::Light)
                .light_color(unicode::Dense1x2::Dark)
                .build()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qr_codes_render() {
        let url = "http://192.168.1.20:7878/__codewhale/pair/cwpair_00";
        let svg = qr_svg(url);
        assert!(svg.starts_with("<?xml") && svg.contains("<svg"), "{svg}");
        assert!(!svg.contains("<script"));
        let text = qr_terminal(url);
        assert!(text.lines().count() > 10);
    }
}
