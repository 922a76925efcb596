//! Which `Host` this server answers to: the defence against DNS rebinding.
//! A page on `attacker.example` whose name resolves to 127.0.0.1 reaches the
//! server with `Host: attacker.example`; refusing every name the user did not
//! choose keeps that page away from everything, public routes included.
//!
//! Accepted: the loopback names (`localhost`, `127.0.0.1`, `[::1]`), the
//! bind host itself, names configured with `--allowed-host` or
//! `[runtime_api] allowed_hosts`, and, on a wildcard bind (0.0.0.0 or ::),
//! this machine's own IP addresses. Any port: ports do not identify a site
//! to a rebinding attacker, and tunnels legitimately change them.

use super::Gate;
use crate::{error::RunError, http::error::ApiError};
use axum::{
    extract::Request,
    http::{header, uri::Authority, StatusCode},
};
use std::net::IpAddr;

const LOOPBACK_NAMES: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

#[derive(Clone, Debug)]
pub struct HostPolicy {
    /// Lower-case host names and IP literals (IPv6 without brackets).
    names: Vec<String>,
    /// A wildcard bind also answers to this machine's interface addresses.
    any_local_address: bool,
}

impl HostPolicy {
    /// The policy of a server bound to `bind_host` with extra `configured` names.
    pub fn new(bind_host: &str, configured: &[String]) -> Self {
        let bind = normalize(bind_host);
        let any_local_address = bind.parse::<IpAddr>().is_ok_and(|ip| ip.is_unspecified());
        let mut names: Vec<String> = LOOPBACK_NAMES.iter().map(|n| n.to_string()).collect();
        // 0.0.0.0 itself is no address of this machine (and a known way for
        // pages to reach local servers): only its interfaces' addresses count.
        let bind = (!any_local_address).then_some(bind);
        for name in bind
            .into_iter()
            .chain(configured.iter().map(|n| normalize(n)))
        {
            if !name.is_empty() && !names.contains(&name) {
                names.push(name);
            }
        }
        Self {
            names,
            any_local_address,
        }
    }

    /// Validated, deduplicated names from `--allowed-host` and config.toml.
    pub fn configured(flags: &[String], config: &[String]) -> Result<Vec<String>, RunError> {
        let mut names: Vec<String> = Vec::new();
        for raw in flags.iter().chain(config) {
            let name = normalize(raw);
            let plain_name = !name.is_empty()
                && !name.contains(['*', '/', '@', ':'])
                && name.parse::<Authority>().is_ok();
            let valid = plain_name || name.parse::<std::net::Ipv6Addr>().is_ok();
            if !valid {
                return Err(RunError::Config(format!(
                    "allowed host {raw:?} must be a host name or IP address, without scheme, port or wildcard"
                )));
            }
            if !names.contains(&name) {
                names.push(name);
            }
        }
        Ok(names)
    }

    /// True if every configured name is a loopback name or address: what a
    /// server without a token may answer to.
    pub fn only_loopback(names: &[String]) -> bool {
        names.iter().all(|name| {
            name == "localhost"
                || name
                    .parse::<IpAddr>()
                    .is_ok_and(|ip| ip.to_canonical().is_loopback())
        })
    }

    /// Whether a request carrying this `Host` value may proceed.
    pub fn allows(&self, host_header: &str) -> Result<bool, &'static str> {
        let host = host_of(host_header)?;
        if self.names.contains(&host) {
            return Ok(true);
        }
        Ok(self.any_local_address
            && host
                .parse::<IpAddr>()
                .is_ok_and(|ip| is_local_address(ip.to_canonical())))
    }
}

/// Refuses requests whose `Host` or request-target authority (absolute
/// form, or HTTP/2's `:authority`) names another site, before
/// authentication and CORS. Both are checked when both are present, so a
/// proxy routing by either cannot disagree with this check. A request with
/// neither comes from no browser and is let through.
///
/// An HTTP/2 request names its host only in `:authority`; once checked, it
/// is copied into `Host`, so everything after this layer (the origin rules
/// above all) reads the host the same way over HTTP/1.1 and HTTP/2.
pub fn check_host(gate: &Gate, request: &mut Request) -> Result<(), ApiError> {
    let mut hosts = request.headers().get_all(header::HOST).iter();
    let header_host = match hosts.next().map(|value| value.to_str()) {
        None => None,
        Some(Ok(text)) => Some(text),
        Some(Err(_)) => return Err(bad_host("the Host header is not valid text")),
    };
    if hosts.next().is_some() {
        return Err(bad_host("a request must carry one Host header"));
    }
    let authority = request.uri().authority().map(|a| a.as_str());
    for host in header_host.into_iter().chain(authority) {
        match gate.hosts.allows(host) {
            Ok(true) => {}
            Ok(false) => return Err(misdirected(host)),
            Err(why) => return Err(bad_host(why)),
        }
    }
    let copied = match header_host {
        None => authority.and_then(|a| header::HeaderValue::from_str(a).ok()),
        Some(_) => None,
    };
    if let Some(authority) = copied {
        request.headers_mut().insert(header::HOST, authority);
    }
    Ok(())
}

fn misdirected(host: &str) -> ApiError {
    let shown: String = host.chars().take(100).collect();
    tracing::warn!(host = %shown, "refused a request for a foreign Host");
    ApiError::Rejected {
        status: StatusCode::MISDIRECTED_REQUEST,
        message: format!(
            "request refused: this server does not answer to the host {shown:?}; \
             if you reach codewhale through that name, start it with --allowed-host"
        ),
    }
}

fn bad_host(why: &'static str) -> ApiError {
    ApiError::BadRequest(why.into())
}

/// The host part of a `Host` value, normalized: no port, no brackets, no
/// trailing dot, lower case.
fn host_of(value: &str) -> Result<String, &'static str> {
    if value.contains('@') {
        return Err("the Host header must not carry user information");
    }
    let authority: Authority = value
        .trim()
        .parse()
        .map_err(|_| "the Host header is not a valid host[:port]")?;
    Ok(normalize(authority.host()))
}

fn normalize(host: &str) -> String {
    let host = host.trim();
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase()
}

/// True if `ip` is one of this machine's interface addresses, read now so
/// an address that changes while the server runs is still recognised.
fn is_local_address(ip: IpAddr) -> bool {
    let Ok(interfaces) = nix::ifaddrs::getifaddrs() else {
        return false;
    };
    interfaces.filter_map(|i| i.address).any(|address| {
        let own = match (address.as_sockaddr_in(), address.as_sockaddr_in6()) {
            (Some(v4), _) => IpAddr::V4(v4.ip()),
            (_, Some(v6)) => IpAddr::V6(v6.ip()),
            _ => return false,
        };
        own.to_canonical() == ip
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_bind_answers_to_loopback_names_only() {
        let policy = HostPolicy::new("127.0.0.1", &[]);
        for good in [
            "127.0.0.1",
            "127.0.0.1:7878",
            "localhost:7878",
            "LOCALHOST",
            "localhost.:80",
            "[::1]:7878",
            "[::1]",
        ] {
            assert_eq!(policy.allows(good), Ok(true), "{good}");
        }
        for bad in [
            "attacker.example",
            "attacker.example:7878",
            "127.0.0.1.nip.io:7878",
            "localhost.attacker.example",
            "127.0.0.2:7878",
            "0.0.0.0:7878",
            "[::ffff:127.0.0.1]:7878",
        ] {
            assert_eq!(policy.allows(bad), Ok(false), "{bad}");
        }
        assert!(policy.allows("user@localhost").is_err());
        assert!(policy.allows("local host").is_err());
    }

    #[test]
    fn configured_names_and_the_bind_host_are_accepted() {
        let policy = HostPolicy::new("dev-box.lan", &["Codewhale.Example.".into()]);
        assert_eq!(policy.allows("dev-box.lan:7878"), Ok(true));
        assert_eq!(policy.allows("codewhale.example"), Ok(true));
        assert_eq!(policy.allows("other.example"), Ok(false));
        let names =
            HostPolicy::configured(&["A.example".into()], &["a.example".into(), "::1".into()]);
        assert_eq!(names.unwrap(), ["a.example", "::1"]);
        for bad in ["*.example", "http://a.example", "a.example:80", "a b", ""] {
            assert!(HostPolicy::configured(&[bad.into()], &[]).is_err(), "{bad}");
        }
    }

    #[test]
    fn wildcard_bind_answers_to_this_machines_addresses() {
        let policy = HostPolicy::new("0.0.0.0", &[]);
        assert_eq!(policy.allows("127.0.0.1:7878"), Ok(true));
        assert_eq!(policy.allows("0.0.0.0:7878"), Ok(false));
        assert_eq!(HostPolicy::new("::", &[]).allows("[::]:7878"), Ok(false));
        assert_eq!(policy.allows("attacker.example"), Ok(false));
        // TEST-NET-3, never assigned to a real interface.
        assert_eq!(policy.allows("203.0.113.7:7878"), Ok(false));
        let own = nix::ifaddrs::getifaddrs()
            .unwrap()
            .filter_map(|i| i.address)
            .filter_map(|a| a.as_sockaddr_in().map(|v4| v4.ip()))
            .max_by_key(|ip| !ip.is_loopback())
            .expect("an IPv4 interface");
        assert_eq!(policy.allows(&format!("{own}:7878")), Ok(true));
        // A specific bind does not widen to other interfaces.
        let specific = HostPolicy::new("127.0.0.1", &[]);
        if !own.is_loopback() {
            assert_eq!(specific.allows(&own.to_string()), Ok(false));
        }
    }
}
