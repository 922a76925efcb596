//! Drives the real router (no socket) as `codewhale web` would build it.
#![allow(dead_code)]

pub mod agent;
pub mod client;
pub mod process;
pub mod scripted;

pub use client::{Api, Events};

use axum::{
    body::Body,
    extract::ConnectInfo,
    http::{header, Request, Response, StatusCode},
    Router,
};
use codewhale::{
    http::{
        auth::{RuntimeToken, WebAuth},
        router,
        state::{AppState, EdgeOptions},
    },
    runtime::{
        engine::{Engine, NoProvider},
        Runtime, RuntimeOptions,
    },
};
use http_body_util::BodyExt;
use std::{net::SocketAddr, sync::Arc};
use tower::ServiceExt;

pub const PORT: u16 = 7878;
pub const ORIGIN: &str = "http://127.0.0.1:7878";
/// The CORS origin `Harness::no_auth` was started with.
pub const CONFIGURED_ORIGIN: &str = "http://localhost:5173";
/// Where `Harness::mobile`'s pairing links point.
pub const PAIRING_BASE: &str = "http://192.0.2.10:7878";
pub const TOKEN: &str = "cwrt_test_token_0123456789abcdef";
/// Short, so approval-timeout tests run quickly.
pub const WAIT_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(1500);

pub struct Harness {
    pub app: Router,
    /// The runtime's and the web session's clock; `advance` it to test
    /// expiry and schedules.
    pub clock: codewhale::clock::Clock,
    pub capability: String,
    pub state: AppState,
    pub home: tempfile::TempDir,
}

impl Harness {
    /// `codewhale web` with a fresh store in a temporary CODEWHALE_HOME.
    pub async fn new() -> Self {
        Self::web(None).await
    }

    /// The workbench's sign-in, and pairing when `pairing` is given.
    async fn web(pairing: Option<codewhale::http::pairing::PairingLinks>) -> Self {
        let token = RuntimeToken::resolve(Some(TOKEN.into())).expect("valid token");
        let clock = codewhale::clock::Clock::default();
        let (web, capability) = WebAuth::new("http", PORT, clock.clone());
        Self::build(
            Some(token),
            Some(web),
            capability,
            codewhale::http::cors::origins(&[], &[]).unwrap(),
            Arc::new(NoProvider),
            pairing,
            clock,
        )
        .await
    }

    /// `codewhale app-server --mobile` as this machine sees it: the desktop
    /// sign-in, and pairing links that name a LAN address (`PAIRING_BASE`).
    pub async fn mobile() -> Self {
        Self::web(Some(codewhale::http::pairing::PairingLinks {
            base_url: PAIRING_BASE.into(),
            tls_fingerprint: None,
            session_days: 30,
        }))
        .await
    }

    /// `codewhale app-server --http` (no web session), without providers.
    pub async fn app_server() -> Self {
        Self::with_engine(Arc::new(NoProvider)).await
    }

    /// `codewhale app-server --http --insecure-no-auth --cors-origin
    /// http://localhost:5173`, without providers.
    pub async fn no_auth() -> Self {
        let cors = codewhale::http::cors::origins(&[CONFIGURED_ORIGIN.into()], &[]).unwrap();
        Self::build(
            None,
            None,
            String::new(),
            cors,
            Arc::new(NoProvider),
            None,
            Default::default(),
        )
        .await
    }

    /// `codewhale app-server --http` whose turns run `engine`.
    pub async fn with_engine(engine: Arc<dyn Engine>) -> Self {
        let token = RuntimeToken::resolve(Some(TOKEN.into())).expect("valid token");
        let cors = codewhale::http::cors::origins(&[], &[]).unwrap();
        Self::build(
            Some(token),
            None,
            String::new(),
            cors,
            engine,
            None,
            Default::default(),
        )
        .await
    }

    async fn build(
        token: Option<RuntimeToken>,
        web: Option<WebAuth>,
        capability: String,
        cors_origins: Vec<String>,
        engine: Arc<dyn Engine>,
        pairing: Option<codewhale::http::pairing::PairingLinks>,
        clock: codewhale::clock::Clock,
    ) -> Self {
        let home = tempfile::tempdir().expect("temp dir");
        let runtime = Runtime::open(RuntimeOptions {
            home: home.path().to_path_buf(),
            engine,
            pricing: Default::default(),
            default_workspace: std::env::current_dir().unwrap(),
            wait_timeout: WAIT_TIMEOUT,
            clock: clock.clone(),
            sub_agents: Default::default(),
        })
        .await
        .expect("runtime");
        let edge = EdgeOptions {
            bind_host: "127.0.0.1".into(),
            port: PORT,
            token,
            web,
            cors_origins,
            allowed_hosts: vec![],
            pairing,
            tls: false,
        };
        let runtime = Arc::new(runtime);
        runtime.run_tasks(codewhale::runtime::tasks::DEFAULT_CONCURRENCY);
        runtime.run_automations(Default::default());
        let state = AppState::new(runtime, edge);
        Self {
            app: router::app(state.clone()),
            clock,
            capability,
            state,
            home,
        }
    }

    pub fn bootstrap_path(&self) -> String {
        format!("/__codewhale/bootstrap/{}", self.capability)
    }

    /// Sends a request as if from `peer` (default loopback).
    pub async fn send(&self, request: Request<Body>) -> Reply {
        self.send_from(request, SocketAddr::from(([127, 0, 0, 1], 50000)))
            .await
    }

    /// A request that never answers fails the test, naming it, rather than
    /// hanging the suite.
    pub async fn send_from(&self, mut request: Request<Body>, peer: SocketAddr) -> Reply {
        request.extensions_mut().insert(ConnectInfo(peer));
        let what = format!("{} {}", request.method(), request.uri());
        let answer = async {
            let response = self.app.clone().oneshot(request).await.expect("infallible");
            Reply::read(response).await
        };
        tokio::time::timeout(std::time::Duration::from_secs(10), answer)
            .await
            .unwrap_or_else(|_| panic!("{what} got no complete answer in 10 s"))
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.send(Request::get(path).body(Body::empty()).unwrap())
            .await
    }

    /// `method path` with these headers and `body`, from loopback.
    pub async fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: impl Into<Body>,
    ) -> Reply {
        let mut request = Request::builder().method(method).uri(path);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        self.send(request.body(body.into()).unwrap()).await
    }

    /// Signs in through the bootstrap link and returns the session cookie pair.
    pub async fn sign_in(&self) -> String {
        let reply = self.get(&self.bootstrap_path()).await;
        assert_eq!(reply.status, StatusCode::SEE_OTHER);
        let set_cookie = reply.header(header::SET_COOKIE.as_str()).expect("cookie");
        set_cookie.split(';').next().unwrap().to_string()
    }
}

pub struct Reply {
    pub status: StatusCode,
    pub headers: axum::http::HeaderMap,
    pub body: Vec<u8>,
}

impl Reply {
    async fn read(response: Response<Body>) -> Self {
        let (parts, body) = response.into_parts();
        let body = body.collect().await.expect("body").to_bytes().to_vec();
        Self {
            status: parts.status,
            headers: parts.headers,
            body,
        }
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("JSON body")
    }

    /// The message of the JSON error envelope `{"error": {"message", "status"}}`.
    pub fn error_message(&self) -> String {
        let body = self.json();
        let message = body["error"]["message"].as_str();
        message
            .unwrap_or_else(|| panic!("no error message: {body}"))
            .to_string()
    }

    /// (status, message) of a JSON error envelope, asserting that the
    /// envelope's status is the response's.
    pub fn error(&self) -> (u16, String) {
        let status = self.status.as_u16();
        let body: serde_json::Value = serde_json::from_slice(&self.body).expect("JSON error body");
        assert_eq!(body["error"]["status"], status, "{body}");
        (status, self.error_message())
    }

    /// Every byte of the response, headers included.
    pub fn all_bytes(&self) -> String {
        let mut all = String::new();
        for (name, value) in &self.headers {
            all.push_str(&format!(
                "{name}: {}\n",
                String::from_utf8_lossy(value.as_bytes())
            ));
        }
        all.push_str(&String::from_utf8_lossy(&self.body));
        all
    }
}

/// The content type of a server function's form post.
pub const FORM: (&str, &str) = ("content-type", "application/x-www-form-urlencoded");

pub fn post(path: &str) -> axum::http::request::Builder {
    Request::post(path).header(FORM.0, FORM.1)
}

impl Harness {
    /// Serves this harness's router on an ephemeral loopback port; returns
    /// the base URL. The server lives until the test's runtime ends.
    pub async fn serve(&self) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let service = self
            .app
            .clone()
            .into_make_service_with_connect_info::<SocketAddr>();
        tokio::spawn(async move { axum::serve(listener, service).await });
        format!("http://{addr}")
    }
}

/// The `codewhale` binary with `home` as `$CODEWHALE_HOME`, none of the
/// token or CORS variables of the environment, and stdout/stderr piped.
pub fn codewhale_in(home: &std::path::Path) -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_codewhale"));
    command
        .env("CODEWHALE_HOME", home)
        .env_remove("CODEWHALE_RUNTIME_TOKEN")
        .env_remove("DEEPSEEK_RUNTIME_TOKEN")
        .env_remove("CODEWHALE_CORS_ORIGINS")
        .env_remove("DEEPSEEK_CORS_ORIGINS")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    command
}

/// A reqwest client that sends the runtime token.
pub fn api_client() -> reqwest::Client {
    client::http_client(Some(TOKEN))
}

/// Reads SSE frames of a thread's event stream as parsed envelopes.
pub struct EventReader {
    stream: std::pin::Pin<
        Box<
            dyn futures::Stream<
                    Item = Result<
                        eventsource_stream::Event,
                        eventsource_stream::EventStreamError<reqwest::Error>,
                    >,
                > + Send,
        >,
    >,
}

impl EventReader {
    pub async fn open(client: &reqwest::Client, url: &str, headers: &[(&str, &str)]) -> Self {
        use eventsource_stream::Eventsource;
        // No limit on the whole response (the client's is 30 s): a stream
        // read under load can last longer; `next` bounds each wait, and
        // the headers must come within 30 s.
        let mut request = client
            .get(url)
            .timeout(std::time::Duration::from_secs(24 * 60 * 60));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = tokio::time::timeout(std::time::Duration::from_secs(30), request.send())
            .await
            .unwrap_or_else(|_| panic!("no response headers within 30 s: {url}"))
            .unwrap();
        assert_eq!(response.status(), 200, "{url}");
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        Self {
            stream: Box::pin(response.bytes_stream().eventsource()),
        }
    }

    /// The next event (id, name, envelope); panics after 10 s of silence.
    pub async fn next(&mut self) -> (String, String, serde_json::Value) {
        self.next_for("an event").await
    }

    /// The next event; after 10 s of silence, panics saying it waited for
    /// `what`.
    async fn next_for(&mut self, what: &str) -> (String, String, serde_json::Value) {
        use futures::StreamExt;
        let event = tokio::time::timeout(std::time::Duration::from_secs(10), self.stream.next())
            .await
            .unwrap_or_else(|_| panic!("waited 10 s for {what}, and no event came"))
            .unwrap_or_else(|| panic!("the stream ended while waiting for {what}"))
            .expect("well-formed SSE");
        let envelope: serde_json::Value = serde_json::from_str(&event.data).expect("JSON envelope");
        // Every event any test reads must be exactly what the OpenAPI
        // document says its name carries.
        assert_eq!(
            envelope["event"],
            event.event.as_str(),
            "SSE name = envelope event"
        );
        if event.event.starts_with("fleet.") {
            // A fleet stream: the worker or the run, as the document says.
            let payload = envelope["payload"].clone();
            let typed = if event.event.starts_with("fleet.worker.") {
                serde_json::from_value::<protocol::FleetWorker>(payload).map(drop)
            } else {
                serde_json::from_value::<protocol::FleetRun>(payload).map(drop)
            };
            typed.unwrap_or_else(|e| panic!("{} payload: {e}", event.event));
        } else if let Err(mismatch) =
            protocol::EventPayload::decode_exact(&event.event, &envelope["payload"])
        {
            panic!("{mismatch}");
        }
        (event.id, event.event, envelope)
    }

    /// Every event (name, envelope) up to and including the first `name`.
    pub async fn until(&mut self, name: &str) -> Events {
        self.wait_until(name, |event, _| event == name).await
    }

    /// Every event up to and including the first for which `done(name,
    /// envelope)` holds; `what` names it if it never comes.
    pub async fn wait_until(
        &mut self,
        what: &str,
        done: impl Fn(&str, &serde_json::Value) -> bool,
    ) -> Events {
        let mut seen = Events::default();
        loop {
            let (_, event, envelope) = self.next_for(what).await;
            let last = done(&event, &envelope);
            seen.push((event, envelope));
            if last {
                return seen;
            }
        }
    }

    /// Waits for `name` and returns its payload.
    pub async fn payload(&mut self, name: &str) -> serde_json::Value {
        let mut events = self.until(name).await;
        events.pop().unwrap().1["payload"].take()
    }

    /// Every event up to and including the one with seq `seq` (or past it).
    pub async fn through(&mut self, seq: i64) -> Events {
        let what = format!("seq {seq}");
        self.wait_until(&what, |_, e| e["seq"].as_i64().unwrap() >= seq)
            .await
    }

    /// True if nothing arrives within `ms`.
    pub async fn quiet_for(&mut self, ms: u64) -> bool {
        use futures::StreamExt;
        tokio::time::timeout(std::time::Duration::from_millis(ms), self.stream.next())
            .await
            .is_err()
    }
}

/// git for test setup (an identity given; file-protocol submodules
/// allowed): the output, asserting success.
pub fn git(dir: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(["-c", "protocol.file.allow=always"])
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}
