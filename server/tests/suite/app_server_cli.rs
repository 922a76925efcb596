//! `codewhale app-server --http` / `serve --http` as a real process:
//! token sources, no-auth rules, CORS from config.toml, restart recovery
//! after SIGKILL.

use crate::common;

use common::{codewhale_in, process::start, Api};
use serde_json::{json, Value};

/// A client that sends no credentials of its own.
fn client() -> reqwest::Client {
    common::client::http_client(None)
}

#[tokio::test]
async fn token_sources_in_order_and_never_in_a_query() {
    let home = tempfile::tempdir().unwrap();
    let mut legacy = codewhale_in(home.path());
    legacy
        .args(["app-server", "--http", "--port", "0"])
        .env("DEEPSEEK_RUNTIME_TOKEN", "legacy-token-0123456789");
    let server = start(legacy);
    let client = client();
    let url = format!("{}/v1/threads", server.base);
    let ok = client
        .get(&url)
        .bearer_auth("legacy-token-0123456789")
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), 200);
    let query = client
        .get(format!("{url}?token=legacy-token-0123456789"))
        .send()
        .await
        .unwrap();
    assert_eq!(query.status(), 401);
    let none = client.get(&url).send().await.unwrap();
    assert_eq!(none.status(), 401);
    let body: Value = none.json().await.unwrap();
    assert_eq!(
        body,
        json!({"error": {"message": "runtime API bearer token required", "status": 401}})
    );
    let health = client
        .get(format!("{}/health", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
}

#[tokio::test]
async fn no_auth_only_on_loopback() {
    let home = tempfile::tempdir().unwrap();
    for args in [
        vec![
            "app-server",
            "--http",
            "--insecure-no-auth",
            "--host",
            "0.0.0.0",
            "--port",
            "0",
        ],
        vec![
            "serve",
            "--http",
            "--insecure",
            "--host",
            "0.0.0.0",
            "--port",
            "0",
        ],
    ] {
        let out = codewhale_in(home.path()).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("loopback"),
            "{args:?}"
        );
    }
    let mut open = codewhale_in(home.path());
    open.args(["serve", "--http", "--insecure", "--port", "0"]);
    let server = start(open);
    let api = Api::with_token(&server.base, None);
    assert_eq!(api.get("/v1/threads").await.status, 200);
    let info = api.get("/v1/runtime/info").await.json();
    assert_eq!(info["auth_required"], false);
}

/// DNS rebinding: only loopback names, the bind host and the names the user
/// allowed (flag or config.toml) reach the server.
#[tokio::test]
async fn hosts_from_flags_and_config_and_nothing_else() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        "[runtime_api]\nallowed_hosts = [\"from-config.test\"]\n",
    )
    .unwrap();
    let mut command = codewhale_in(home.path());
    command.args([
        "app-server",
        "--http",
        "--auth-token",
        "cwrt_hosts_test_0123456789abcdef",
        "--port",
        "0",
        "--allowed-host",
        "From-Flag.test",
    ]);
    let server = start(command);
    for (host, status) in [
        ("from-flag.test", 200),
        ("from-config.test:8080", 200),
        ("localhost", 200),
        ("attacker.example", 421),
        ("from-flag.test.attacker.example", 421),
    ] {
        let reply = client()
            .get(format!("{}/v1/threads", server.base))
            .header("host", host)
            .bearer_auth("cwrt_hosts_test_0123456789abcdef")
            .send()
            .await
            .unwrap();
        assert_eq!(reply.status(), status, "{host}");
    }
    let out = codewhale_in(home.path())
        .args([
            "app-server",
            "--http",
            "--port",
            "0",
            "--allowed-host",
            "*.example",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("allowed host"));
    // Without a token, a tunnel's name would carry anyone to the server.
    let out = codewhale_in(home.path())
        .args(["app-server", "--http", "--port", "0", "--insecure-no-auth"])
        .args(["--allowed-host", "tunnel.example"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("loopback"));
}

#[tokio::test]
async fn cors_origins_from_flags_env_and_config() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        "[runtime_api]\ncors_origins = [\"http://localhost:5173\"]\n",
    )
    .unwrap();
    let mut command = codewhale_in(home.path());
    command
        .args([
            "app-server",
            "--http",
            "--port",
            "0",
            "--cors-origin",
            "http://localhost:8080",
        ])
        .env(
            "CODEWHALE_CORS_ORIGINS",
            "http://localhost:9000, http://127.0.0.1:9001",
        );
    let server = start(command);
    let client = client();
    for (origin, allowed) in [
        ("http://localhost:5173", true),
        ("http://localhost:8080", true),
        ("http://localhost:9000", true),
        ("http://127.0.0.1:9001", true),
        ("tauri://localhost", true),
        ("http://localhost:6666", false),
    ] {
        let reply = client
            .request(
                reqwest::Method::OPTIONS,
                format!("{}/v1/threads", server.base),
            )
            .header("origin", origin)
            .header("access-control-request-method", "GET")
            .send()
            .await
            .unwrap();
        let echoed = reply
            .headers()
            .get("access-control-allow-origin")
            .map(|v| v.to_str().unwrap().to_string());
        assert_eq!(echoed.as_deref() == Some(origin), allowed, "{origin}");
    }

    let bad = tempfile::tempdir().unwrap();
    let out = codewhale_in(bad.path())
        .args(["app-server", "--http", "--port", "0", "--cors-origin", "*"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("wildcard"));
    std::fs::write(bad.path().join("config.toml"), "[runtime_api\n").unwrap();
    let out = codewhale_in(bad.path())
        .args(["app-server", "--http", "--port", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("config.toml"));
}

#[tokio::test]
async fn without_a_provider_turns_are_refused_with_what_to_configure() {
    let home = tempfile::tempdir().unwrap();
    let mut bare = codewhale_in(home.path());
    bare.args([
        "app-server",
        "--http",
        "--port",
        "0",
        "--auth-token",
        "a-token-for-this-test",
    ])
    .env_remove("DEEPSEEK_API_KEY")
    .env_remove("OPENAI_API_KEY");
    let server = start(bare);
    let api = Api::with_token(&server.base, Some("a-token-for-this-test"));
    let thread = api.create_thread(json!({})).await;
    let reply = api
        .try_start_turn(&thread.id, json!({"prompt": "hello"}))
        .await;
    // A conflict with the configuration: the same request works once a
    // provider is configured.
    assert_eq!(reply.status, 409);
    let message = reply.error_message();
    assert!(
        message.contains("DEEPSEEK_API_KEY") && message.contains("config.toml"),
        "{message}"
    );
}

/// The user's answers reach the model and never the process's logs, even
/// at trace level.
#[tokio::test]
async fn user_input_answers_stay_out_of_trace_logs() {
    const SECRET: &str = "answer-in-logs-5d1e9b";
    let mock = mock_provider::Mock::default();
    let mock_url = mock.serve(0).await.unwrap();
    let questions =
        json!({"questions": [{"id": "q", "question": "Password?", "allow_free_text": true}]});
    mock.push(mock_provider::Reply::Stream {
        chunks: vec![
            mock_provider::Chunk::ToolCall {
                index: 0,
                id: Some("c1".into()),
                name: Some("request_user_input".into()),
                arguments: questions.to_string(),
            },
            mock_provider::Chunk::Finish {
                reason: "tool_calls".into(),
            },
        ],
        delay_ms: 0,
    });
    mock.push(mock_provider::Reply::text(&["thanks"]));
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        format!("default_provider = \"mock\"\n[providers.mock]\nbase_url = \"{mock_url}\"\nmodels = [\"m\"]\n"),
    )
    .unwrap();
    let mut command = codewhale_in(home.path());
    command
        .args(["app-server", "--http", "--port", "0"])
        .env("CODEWHALE_RUNTIME_TOKEN", common::TOKEN)
        .env("RUST_LOG", "trace");
    let mut server = start(command);
    // Drained all along: a full pipe would stall the server.
    let mut stderr = server.child.stderr.take().unwrap();
    let logs = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut text).ok();
        text
    });
    let api = Api::new(&server.base);
    let id = api.create_thread(json!({})).await.id;
    let mut reader = api.events(&id).await;
    api.start_turn(&id, json!({"prompt": "ask me"})).await;
    let required = reader.payload("user_input.required").await;
    let input = required["id"].as_str().unwrap();
    let answer = json!({"answers": [{"id": "q", "label": "", "value": SECRET}]});
    api.answer_user_input(&id, input, answer).await;
    reader.until("turn.completed").await;
    assert!(
        mock.requests()[1].to_string().contains(SECRET),
        "the model got it"
    );
    let _ = server.child.kill();
    let _ = server.child.wait();
    let logs = logs.join().unwrap();
    assert!(logs.contains("user-input"), "trace logs cover the request");
    assert!(!logs.contains(SECRET), "the answer is in the logs");
}
