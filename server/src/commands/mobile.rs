//! What `--mobile` tells the person at the terminal: that the server is
//! reachable from the network, the URLs that reach it, the desktop's
//! sign-in link and a first one-time pairing link with its QR code.

use crate::http::{
    lan::{interface_addresses, url_host},
    pairing::qr_terminal,
    tls::Tls,
};
use protocol::PairingCreated;
use std::net::IpAddr;

/// `scheme://address:port` for every address a phone can use: each
/// interface address on a wildcard bind, else the bind host (none when it
/// is loopback: no phone reaches that).
pub fn lan_urls(scheme: &str, host: &str, port: u16) -> Vec<String> {
    let addresses: Vec<String> = match host.parse::<IpAddr>() {
        Ok(ip) if ip.is_unspecified() => interface_addresses()
            .into_iter()
            .filter(|a| ip.is_ipv6() || a.is_ipv4())
            .map(|a| a.to_string())
            .collect(),
        Ok(ip) if ip.is_loopback() => Vec::new(),
        _ if host == "localhost" => Vec::new(),
        _ => vec![host.to_string()],
    };
    addresses
        .into_iter()
        .map(|a| format!("{scheme}://{}:{port}", url_host(&a)))
        .collect()
}

/// Where pairing links point: the first configured name (a certificate's or
/// a tunnel's name, which the phone must use), else the address of the
/// default route's interface, else the first LAN URL, else `local_url`.
pub fn pairing_base(
    scheme: &str,
    port: u16,
    names: &[String],
    lan_urls: &[String],
    local_url: &str,
) -> String {
    if let Some(name) = names.iter().find(|n| n.parse::<IpAddr>().is_err()) {
        return format!("{scheme}://{name}:{port}");
    }
    let preferred = crate::http::lan::default_route_address()
        .map(|ip| format!("{scheme}://{}:{port}", url_host(&ip.to_string())));
    match preferred {
        Some(url) if lan_urls.contains(&url) => url,
        _ => lan_urls
            .first()
            .cloned()
            .unwrap_or_else(|| local_url.to_string()),
    }
}

pub struct Announcement<'a> {
    pub host: &'a str,
    pub local_url: &'a str,
    pub lan_urls: &'a [String],
    pub workbench_link: Option<&'a str>,
    pub pairing: Option<&'a PairingCreated>,
    pub tls: Option<&'a Tls>,
}

/// Printed on stderr (stdout carries only the local URL).
pub fn announce(a: &Announcement<'_>) {
    let mut out = String::new();
    if a.lan_urls.is_empty() {
        out.push_str(&format!(
            "codewhale: mobile mode on {} only: phones on the network cannot reach it \
             (leave out --host to bind every interface).\n",
            a.host
        ));
    } else {
        out.push_str(
            "WARNING: codewhale is reachable from your network: anyone who can reach these \
             addresses can try to connect. Only paired devices and runtime-token holders get in.\n",
        );
        if a.tls.is_none() {
            out.push_str(
                "WARNING: plain HTTP: traffic on the LAN is not encrypted, and phones get no \
                 notifications or install prompt (they need HTTPS: --tls self-signed, or \
                 --tls-cert/--tls-key).\n",
            );
        }
    }
    out.push_str(&format!("  Local: {}/mobile\n", a.local_url));
    for url in a.lan_urls {
        out.push_str(&format!("  LAN:   {url}/mobile\n"));
    }
    if let Some(link) = a.workbench_link {
        out.push_str(&format!(
            "workbench: {link}\n  (opens the desktop workbench on this computer; works once, for 10 minutes)\n"
        ));
    }
    if let Some(pairing) = a.pairing {
        out.push_str(&format!(
            "pair: {}\n  (scan the code below with the phone's camera; the link works once, until {})\n",
            pairing.url, pairing.expires_at
        ));
        out.push_str(&qr_terminal(&pairing.url));
        out.push('\n');
        out.push_str(
            "  More links: `codewhale pair` or the workbench's \u{201c}Pair a phone\u{201d}.\n",
        );
    }
    if let Some(tls) = a.tls {
        if tls.self_signed {
            out.push_str(&format!(
                "TLS: self-signed certificate, SHA-256 fingerprint\n  {}\n  \
                 (your phone will warn once: check that it shows this fingerprint before accepting)\n",
                tls.fingerprint
            ));
        } else {
            out.push_str(&format!("TLS: certificate SHA-256 {}\n", tls.fingerprint));
        }
    }
    eprint!("{out}");
}
