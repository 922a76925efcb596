//! The real `codewhale` binary: flags, exit codes, and a sign-in over TCP.

use std::{
    io::{BufRead, BufReader, Read},
    net::TcpListener,
    process::{Child, Command, Stdio},
    time::Duration,
};

const TOKEN: &str = "cwrt_cli_test_token_fedcba9876543210";

fn codewhale() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_codewhale"));
    command
        .env_remove("CODEWHALE_RUNTIME_TOKEN")
        .env_remove("DEEPSEEK_RUNTIME_TOKEN")
        .env(
            "CODEWHALE_HOME",
            // Per process: a store left by another build is never reused.
            std::env::temp_dir().join(format!("codewhale-cli-test-{}", std::process::id())),
        );
    command
}

#[test]
fn help_and_version() {
    let help = codewhale().arg("--help").output().unwrap();
    assert!(help.status.success());
    let text = String::from_utf8(help.stdout).unwrap();
    assert!(text.contains("web"), "{text}");

    let version = codewhale().arg("--version").output().unwrap();
    assert!(version.status.success());
    assert_eq!(
        String::from_utf8(version.stdout).unwrap().trim(),
        format!("codewhale {}", env!("CARGO_PKG_VERSION"))
    );

    let web_help = codewhale().args(["web", "--help"]).output().unwrap();
    let text = String::from_utf8(web_help.stdout).unwrap();
    for flag in ["--port", "--no-open", "--host"] {
        assert!(text.contains(flag), "{flag} in {text}");
    }
}

#[test]
fn unknown_flags_exit_2_with_clap_message() {
    let out = codewhale().args(["web", "--frobnicate"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("unexpected argument '--frobnicate'"),
        "{stderr}"
    );
}

#[test]
fn non_loopback_hosts_are_refused() {
    let out = codewhale()
        .args(["web", "--host", "0.0.0.0", "--no-open"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("only binds 127.0.0.1"));
}

#[test]
fn a_port_in_use_exits_1_naming_the_port() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let out = codewhale()
        .args(["web", "--no-open", "--port", &port.to_string()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains(&format!("port {port}")), "{stderr}");
    assert!(stderr.contains("already in use"), "{stderr}");
}

/// Starts `codewhale web` on a free port; returns the server and its launch URL.
fn start_web(command: &mut Command) -> (Server, String, std::process::ChildStderr) {
    let mut child = command
        .args(["web", "--no-open", "--port", "0", "--auth-token", TOKEN])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let stderr = child.stderr.take().unwrap();
    let mut url = String::new();
    stdout.read_line(&mut url).unwrap();
    if url.trim().is_empty() {
        // The server ended before printing its URL: show why.
        let mut why = String::new();
        let _ = BufReader::new(stderr).read_to_string(&mut why);
        panic!("codewhale web printed no URL: {:?}\n{why}", child.wait());
    }
    (Server(child), url.trim().to_string(), stderr)
}

fn http_client() -> reqwest::Client {
    {
        codewhale::provider::install_tls();
        reqwest::Client::builder()
    }
    .redirect(reqwest::redirect::Policy::none())
    .timeout(Duration::from_secs(30))
    .build()
    .unwrap()
}

/// Kills the server when the test ends, pass or fail.
struct Server(Child);
impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
    }
}

#[tokio::test]
async fn sign_in_over_tcp_and_no_secret_in_output() {
    let (server, url, stderr) = start_web(codewhale().env("RUST_LOG", "trace"));
    let (base, capability) = url
        .split_once("/__codewhale/bootstrap/")
        .expect("launch URL");
    assert!(base.starts_with("http://127.0.0.1:"), "{url}");
    assert!(
        capability.starts_with("cwwb_") && capability.len() == 5 + 64,
        "{url}"
    );
    assert!(!url.contains(TOKEN));

    let client = http_client();
    let first = client.get(&url).send().await.unwrap();
    assert_eq!(first.status(), 303);
    let cookie = first.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(
        cookie.contains("; HttpOnly; SameSite=Strict; Path=/; Max-Age="),
        "{cookie}"
    );
    let again = client.get(&url).send().await.unwrap();
    assert_eq!(again.status(), 401);
    assert!(again.headers().get("set-cookie").is_none());

    let health = client.get(format!("{base}/health")).send().await.unwrap();
    assert_eq!(health.status(), 200);
    let ping = client
        .post(format!("{base}/api/ping"))
        .header("authorization", format!("Bearer {TOKEN}"))
        .header("content-type", "application/x-www-form-urlencoded")
        .send()
        .await
        .unwrap();
    assert_eq!(ping.status(), 200);

    // SIGTERM stops the server cleanly.
    let status = Command::new("kill")
        .args(["-TERM", &server.0.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let mut server = server;
    let exit = server.0.wait().unwrap();
    assert!(exit.success(), "{exit:?}");
    let mut logs = String::new();
    BufReader::new(stderr).read_to_string(&mut logs).unwrap();
    assert!(logs.contains("signed in"), "{logs}");
    assert!(!logs.contains(TOKEN), "token in logs");
    assert!(!logs.contains(capability), "capability in logs");
    let session = cookie.split(';').next().unwrap().split('=').nth(1).unwrap();
    assert!(!logs.contains(session), "session in logs");
}

#[tokio::test]
async fn the_binary_carries_its_assets_and_runs_from_anywhere() {
    let dir = std::env::temp_dir().join(format!("codewhale-anywhere-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let copy = dir.join("codewhale");
    // `cp` in its own process: copying from this (multi-threaded) test
    // process could leak the write handle into a concurrently spawned child
    // and make the exec fail with "text file busy".
    let copied = Command::new("cp")
        .arg(env!("CARGO_BIN_EXE_codewhale"))
        .arg(&copy)
        .status()
        .unwrap();
    assert!(copied.success());
    let mut command = Command::new(&copy);
    command
        .current_dir(&dir)
        // Its own home: the user's real ~/.codewhale may hold a store from
        // another build (and a test never touches it).
        .env("CODEWHALE_HOME", dir.join("home"))
        .env_remove("CODEWHALE_RUNTIME_TOKEN")
        .env_remove("DEEPSEEK_RUNTIME_TOKEN");
    let (server, url, _stderr) = start_web(&mut command);
    let base = url.split("/__codewhale/").next().unwrap().to_string();
    let client = http_client();
    for asset in [
        "pkg/codewhale.js",
        "pkg/codewhale_bg.wasm",
        "pkg/codewhale.css",
        "favicon.svg",
    ] {
        let reply = client.get(format!("{base}/{asset}")).send().await.unwrap();
        assert_eq!(reply.status(), 200, "{asset}");
        assert!(!reply.bytes().await.unwrap().is_empty(), "{asset}");
    }
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}
