//! This machine's addresses, for `--mobile`'s LAN URLs.

use std::net::IpAddr;

/// Every address of an interface that is up, except loopback and IPv6
/// link-local ones (a phone cannot use those without a zone id). IPv4 first.
pub fn interface_addresses() -> Vec<IpAddr> {
    let Ok(interfaces) = nix::ifaddrs::getifaddrs() else {
        return Vec::new();
    };
    let mut addresses: Vec<IpAddr> = interfaces
        .filter(|i| i.flags.contains(nix::net::if_::InterfaceFlags::IFF_UP))
        .filter_map(|i| i.address)
        .filter_map(|a| match (a.as_sockaddr_in(), a.as_sockaddr_in6()) {
            (Some(v4), _) => Some(IpAddr::V4(v4.ip())),
            (_, Some(v6)) => Some(IpAddr::V6(v6.ip())),
            _ => None,
        })
        .filter(|ip| !ip.is_loopback() && !is_link_local_v6(ip))
        .collect();
    addresses.sort_by_key(|ip| (ip.is_ipv6(), *ip));
    addresses.dedup();
    addresses
}

/// The IPv4 address of the interface the default route leaves through:
/// the one a phone on the same Wi-Fi most likely reaches (a Docker bridge
/// or VPN address sorts earlier but is rarely the phone's network).
pub fn default_route_address() -> Option<IpAddr> {
    let routes = std::fs::read_to_string("/proc/net/route").ok()?;
    let interface = routes.lines().skip(1).find_map(|line| {
        let mut fields = line.split_whitespace();
        let name = fields.next()?;
        (fields.next()? == "00000000").then(|| name.to_string())
    })?;
    nix::ifaddrs::getifaddrs()
        .ok()?
        .filter(|i| i.interface_name == interface)
        .filter_map(|i| i.address)
        .find_map(|a| a.as_sockaddr_in().map(|v4| IpAddr::V4(v4.ip())))
}

fn is_link_local_v6(ip: &IpAddr) -> bool {
    matches!(ip, IpAddr::V6(v6) if (v6.segments()[0] & 0xffc0) == 0xfe80)
}

/// `host` as it goes in a URL (IPv6 in brackets).
pub fn url_host(host: &str) -> String {
    if host.parse::<std::net::Ipv6Addr>().is_ok() {
        format!("[{host}]")
    } else {
        host.to_string()
    }
}
