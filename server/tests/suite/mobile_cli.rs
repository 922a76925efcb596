//! `codewhale app-server --mobile` as a real process: the LAN warning and
//! URLs, the Host and Origin rules on a 0.0.0.0 bind (reached through
//! another loopback address, 127.0.0.2), no-auth refused, TLS with a
//! generated certificate, and `codewhale pair`.

use crate::common;

use common::codewhale_in;

use sha2::{Digest, Sha256};
use std::{
    io::{BufRead, BufReader},
    net::IpAddr,
    path::Path,
    process::Child,
    sync::mpsc,
    time::Duration,
};

const TOKEN: &str = "cwrt_mobile_test_token_0123456789";

struct Server {
    child: Child,
    base: String,
    port: u16,
    /// stderr lines, up to the end of the start-up announcement.
    banner: Vec<String>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `app-server` with `args`; waits for the URL on stdout and the
/// announcement on stderr (up to its last line, which names `last`).
fn start(home: &Path, args: &[&str], last: &str) -> Server {
    let mut child = codewhale_in(home).args(args).spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let base = line.trim().to_string();
    assert!(base.contains("://127.0.0.1:"), "{line:?}");
    let port = base.rsplit(':').next().unwrap().parse().unwrap();
    let (lines, received) = mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        // Keeps draining after the banner: a server whose stderr closes
        // fails its next log write.
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let mut banner = Vec::new();
    while let Ok(line) = received.recv_timeout(Duration::from_secs(10)) {
        let done = line.contains(last);
        banner.push(line);
        if done {
            break;
        }
    }
    assert!(
        banner.iter().any(|l| l.contains(last)),
        "no {last:?} in {banner:#?}"
    );
    Server {
        child,
        base,
        port,
        banner,
    }
}

impl Server {
    fn line_after(&self, prefix: &str) -> Option<String> {
        self.banner
            .iter()
            .find_map(|l| l.strip_prefix(prefix).map(|rest| rest.trim().to_string()))
    }
}

/// This machine's non-loopback IPv4 addresses.
fn lan_addresses() -> Vec<IpAddr> {
    nix::ifaddrs::getifaddrs()
        .unwrap()
        .filter(|i| i.flags.contains(nix::net::if_::InterfaceFlags::IFF_UP))
        .filter_map(|i| i.address)
        .filter_map(|a| a.as_sockaddr_in().map(|v4| IpAddr::V4(v4.ip())))
        .filter(|ip| !ip.is_loopback())
        .collect()
}

fn client() -> reqwest::Client {
    codewhale::provider::install_tls();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap()
}

#[tokio::test]
async fn mobile_mode_warns_and_prints_local_and_lan_urls_and_a_pairing_code() {
    let home = tempfile::tempdir().unwrap();
    let server = start(
        home.path(),
        &[
            "app-server",
            "--mobile",
            "--port",
            "0",
            "--auth-token",
            TOKEN,
        ],
        "More links",
    );
    let banner = server.banner.join("\n");
    assert!(banner.contains("WARNING: codewhale is reachable from your network"));
    assert!(banner.contains("WARNING: plain HTTP"));
    assert!(banner.contains(&format!("Local: {}/mobile", server.base)));
    let lan = lan_addresses();
    for ip in &lan {
        assert!(
            banner.contains(&format!("LAN:   http://{ip}:{}/mobile", server.port)),
            "{ip} missing from {banner}"
        );
    }
    let pair = server.line_after("pair: ").expect("a pairing link");
    let mut bases: Vec<String> = lan
        .iter()
        .map(|ip| format!("http://{ip}:{}", server.port))
        .collect();
    if bases.is_empty() {
        bases.push(server.base.clone());
    }
    assert!(
        bases
            .iter()
            .any(|base| pair.starts_with(&format!("{base}/__codewhale/pair/cwpair_"))),
        "{pair} is on none of {bases:?}"
    );
    // The QR code (half-block characters) follows the link.
    assert!(banner.contains('▀') || banner.contains('▄'), "{banner}");
    let workbench = server.line_after("workbench: ").expect("a desktop sign-in");
    assert!(workbench.starts_with(&format!("{}/__codewhale/bootstrap/cwwb_", server.base)));
    // Nothing reusable: the runtime token is never printed.
    assert!(!banner.contains(TOKEN));
}

#[tokio::test]
async fn a_wildcard_bind_answers_only_its_addresses_and_names_and_checks_origins() {
    let home = tempfile::tempdir().unwrap();
    let server = start(
        home.path(),
        &[
            "app-server",
            "--mobile",
            "--port",
            "0",
            "--auth-token",
            TOKEN,
            "--allowed-host",
            "codewhale.test",
        ],
        "More links",
    );
    let port = server.port;
    // Another loopback address reaches the socket, as a LAN peer would; the
    // request is written by hand so its Host is exactly what we say.
    let health = |host: String| async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut socket = tokio::net::TcpStream::connect(("127.0.0.2", port))
            .await
            .unwrap();
        let request = format!("GET /health HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
        socket.write_all(request.as_bytes()).await.unwrap();
        let mut reply = String::new();
        socket.read_to_string(&mut reply).await.unwrap();
        reply[9..12].parse::<u16>().unwrap()
    };
    assert_eq!(health(format!("attacker.example:{port}")).await, 421);
    assert_eq!(
        health(format!("127.0.0.2:{port}")).await,
        421,
        "not an interface address"
    );
    assert_eq!(health(format!("0.0.0.0:{port}")).await, 421);
    assert_eq!(health(format!("codewhale.test:{port}")).await, 200);
    assert_eq!(health(format!("127.0.0.1:{port}")).await, 200);
    for ip in lan_addresses() {
        assert_eq!(health(format!("{ip}:{port}")).await, 200, "{ip}");
    }

    // A phone that reached the server as codewhale.test pairs and works
    // from that origin, and only from it.
    codewhale::provider::install_tls();
    let phone = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .resolve("codewhale.test", ([127, 0, 0, 2], port).into())
        .build()
        .unwrap();
    let pair = server.line_after("pair: ").unwrap();
    // A configured name is what pairing links use.
    assert!(
        pair.starts_with(&format!("http://codewhale.test:{port}/")),
        "{pair}"
    );
    let path = &pair[pair.find("/__codewhale/").unwrap()..];
    let origin = format!("http://codewhale.test:{port}");
    let paired = phone.get(format!("{origin}{path}")).send().await.unwrap();
    assert_eq!(paired.status(), 303);
    let cookie = paired.headers()["set-cookie"].to_str().unwrap();
    let cookie = cookie.split(';').next().unwrap().to_string();
    let create = |origin: String| {
        let request = phone
            .post(format!("http://codewhale.test:{port}/v1/threads"))
            .header("cookie", &cookie)
            .header("origin", origin)
            .header("content-type", "application/json")
            .body("{}")
            .send();
        async move { request.await.unwrap().status().as_u16() }
    };
    assert_eq!(create(origin.clone()).await, 201);
    assert_eq!(create(format!("http://127.0.0.2:{port}")).await, 403);
    assert_eq!(create("http://attacker.example".into()).await, 403);
    assert_eq!(create(format!("https://codewhale.test:{port}")).await, 403);
    let devices = client()
        .get(format!("{}/v1/devices", server.base))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap()
        .json::<serde_json::Value>()
        .await
        .unwrap();
    // The kernel picks the source address (127.0.0.1 on Linux).
    let seen = devices[0]["last_address"].as_str().unwrap();
    assert!(seen.starts_with("127.0.0."), "{seen}");
}

#[test]
fn no_auth_is_refused_on_a_mobile_bind() {
    let home = tempfile::tempdir().unwrap();
    for args in [
        &[
            "app-server",
            "--mobile",
            "--insecure-no-auth",
            "--port",
            "0",
        ][..],
        &["serve", "--mobile", "--insecure", "--port", "0"][..],
        &[
            "app-server",
            "--mobile",
            "--host",
            "0.0.0.0",
            "--insecure-no-auth",
            "--port",
            "0",
        ][..],
    ] {
        let output = codewhale_in(home.path()).args(args).output().unwrap();
        assert!(!output.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("only allowed on a loopback bind"),
            "{stderr}"
        );
    }
}

#[tokio::test]
async fn tls_with_a_generated_certificate_and_codewhale_pair() {
    let home = tempfile::tempdir().unwrap();
    let args = [
        "app-server",
        "--mobile",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--tls",
        "self-signed",
        "--auth-token",
        TOKEN,
    ];
    let server = start(home.path(), &args, "will warn once");
    assert!(
        server.base.starts_with("https://127.0.0.1:"),
        "{}",
        server.base
    );
    let banner = server.banner.join("\n");
    assert!(
        banner.contains("phones on the network cannot reach it"),
        "{banner}"
    );
    assert!(!banner.contains("plain HTTP"));

    let tls = home.path().join("tls");
    let cert_pem = std::fs::read(tls.join("self-signed-cert.pem")).unwrap();
    let key_mode = std::fs::metadata(tls.join("self-signed-key.pem"))
        .unwrap()
        .permissions();
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(key_mode.mode() & 0o777, 0o600);
    let certs = reqwest::Certificate::from_pem_bundle(&cert_pem).unwrap();
    let der = rustls::pki_types::pem::PemObject::from_pem_slice(&cert_pem)
        .map(|c: rustls::pki_types::CertificateDer<'static>| c.to_vec())
        .unwrap();
    let fingerprint = Sha256::digest(&der)
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(":");
    let printed = server
        .banner
        .iter()
        .skip_while(|l| !l.contains("fingerprint"))
        .nth(1)
        .unwrap()
        .trim()
        .to_string();
    assert_eq!(printed, fingerprint);

    codewhale::provider::install_tls();
    let untrusting = reqwest::Client::new();
    assert!(untrusting
        .get(format!("{}/health", server.base))
        .send()
        .await
        .is_err());
    let trusting = reqwest::Client::builder()
        .tls_certs_merge(certs)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let health = trusting
        .get(format!("{}/health", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);

    // `codewhale pair` talks to the running server over that certificate.
    let output = codewhale_in(home.path())
        .args([
            "pair",
            "--url",
            &server.base,
            "--ttl",
            "2m",
            "--label",
            "Test phone",
        ])
        .env("CODEWHALE_RUNTIME_TOKEN", TOKEN)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let url = String::from_utf8_lossy(&output.stdout).trim().to_string();
    assert!(
        url.starts_with(&format!("{}/__codewhale/pair/cwpair_", server.base)),
        "{url}"
    );
    assert!(stderr.contains(&fingerprint), "{stderr}");
    let paired = trusting.get(&url).send().await.unwrap();
    assert_eq!(paired.status(), 303);
    let cookie = paired.headers()["set-cookie"].to_str().unwrap();
    assert!(cookie.contains("; Secure"), "{cookie}");
    let devices: serde_json::Value = trusting
        .get(format!("{}/v1/devices", server.base))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(devices[0]["name"], "Test phone");
    // Over HTTP/2 (what phones negotiate), the page's origin is still known:
    // a change from it works, one from elsewhere does not.
    let cookie = cookie.split(';').next().unwrap().to_string();
    let create = |origin: String| {
        let request = trusting
            .post(format!("{}/v1/threads", server.base))
            .header("cookie", &cookie)
            .header("origin", origin)
            .header("content-type", "application/json")
            .body("{}")
            .send();
        async move {
            let reply = request.await.unwrap();
            assert_eq!(reply.version(), reqwest::Version::HTTP_2);
            reply.status().as_u16()
        }
    };
    assert_eq!(create(server.base.clone()).await, 201);
    assert_eq!(create(server.base.replace("https", "http")).await, 403);
    drop(server);

    // The certificate is made once: a restart serves the same one.
    let again = start(home.path(), &args, "will warn once");
    assert!(again.banner.join("\n").contains(&fingerprint));
}

#[test]
fn codewhale_pair_explains_what_it_needs() {
    let home = tempfile::tempdir().unwrap();
    let no_token = codewhale_in(home.path())
        .args(["pair", "--url", "http://127.0.0.1:9"])
        .output()
        .unwrap();
    assert!(!no_token.status.success());
    assert!(String::from_utf8_lossy(&no_token.stderr).contains("runtime token"));
    let unreachable = codewhale_in(home.path())
        .args(["pair", "--url", "http://127.0.0.1:9", "--auth-token", TOKEN])
        .output()
        .unwrap();
    assert!(!unreachable.status.success());
    assert!(String::from_utf8_lossy(&unreachable.stderr).contains("cannot reach codewhale"));
    for ttl in ["0s", "2h", "five"] {
        let bad = codewhale_in(home.path())
            .args(["pair", "--ttl", ttl, "--auth-token", TOKEN])
            .output()
            .unwrap();
        assert!(!bad.status.success(), "{ttl}");
    }
}
