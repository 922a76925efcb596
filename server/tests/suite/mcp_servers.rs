//! MCP servers from `config.toml` through the real router, the real agent
//! and real MCP servers from npm (`interop/node_modules`: the reference
//! `server-everything` and `server-filesystem`, and `flaky-mcp-server.mjs`
//! on the official SDK): added through the API (values never shown),
//! started on first use, their tools offered as `mcp__<server>__<tool>` and
//! called with approval unless the server is trusted; a server that crashes
//! mid-call is reported and started again on the next use; one that never
//! answers costs its time-outs only.

use crate::common::{
    self,
    agent::{setup_in_workspace, tool_call, Setup},
};
use mock_provider::Reply;
use serde_json::{json, Value};
use std::path::PathBuf;

fn interop() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../interop")
}

fn node_module(path: &str) -> String {
    let file = interop().join("node_modules").join(path);
    assert!(
        file.exists(),
        "{} is missing: run scripts/setup (npm ci in interop/)",
        file.display()
    );
    file.canonicalize().unwrap().display().to_string()
}

fn node() -> String {
    which("node")
}

fn which(program: &str) -> String {
    std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join(program))
                .find(|candidate| candidate.is_file())
        })
        .unwrap_or_else(|| panic!("{program} is not on PATH"))
        .display()
        .to_string()
}

fn flaky(args: &[&str]) -> Vec<String> {
    let script = interop().join("fixtures/flaky-mcp-server.mjs");
    let mut all = vec![script.canonicalize().unwrap().display().to_string()];
    all.extend(args.iter().map(|a| a.to_string()));
    all
}

async fn add(s: &Setup, body: Value) -> Value {
    let added = s.api.post("/v1/apps/mcp/servers", body).await;
    assert_eq!(added.status, 201, "{}", added.text());
    added.json()
}

async fn get(s: &Setup, path: &str) -> Value {
    let reply = s.api.get(path).await;
    assert_eq!(reply.status, 200, "{path}: {}", reply.text());
    reply.json()
}

/// The server's record once its status is `status` (waits a little).
async fn until_status(s: &Setup, name: &str, status: &str) -> Value {
    for _ in 0..200 {
        let server = get(s, &format!("/v1/apps/mcp/servers/{name}")).await;
        if server["status"] == status {
            return server;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("{name} never became {status}");
}

fn exposed(list: &Value) -> Vec<String> {
    let mut names: Vec<String> = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["exposed_name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}

/// The tool names the model was offered in its `n`th request.
fn offered(s: &Setup, n: usize) -> Vec<String> {
    s.mock.requests()[n]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn configured_servers_are_started_on_use_and_their_tools_called_with_approval() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().canonicalize().unwrap();
    std::fs::write(workspace.join("notes.txt"), "FILESYSTEM-CONTENT\n").unwrap();
    let s = setup_in_workspace(&workspace, json!({})).await;
    let home = s._h.home.path().to_path_buf();

    let everything = add(
        &s,
        json!({
            "name": "everything",
            "command": node(),
            "args": [node_module("@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
            "env": { "PLANTED_SECRET": "env-value-never-shown" },
        }),
    )
    .await;
    // Written to config.toml, values never shown; nothing started yet.
    assert_eq!(everything["env"], json!(["PLANTED_SECRET"]));
    assert_eq!(everything["status"], "idle");
    assert_eq!(everything["starts"], 0);
    let fs = add(
        &s,
        json!({
            "name": "fs",
            "command": node(),
            "args": [node_module("@modelcontextprotocol/server-filesystem/dist/index.js"), workspace],
            "trusted": true,
        }),
    )
    .await;
    assert_eq!(fs["trusted"], true);
    let config = std::fs::read_to_string(home.join("config.toml")).unwrap();
    assert!(config.contains("[mcp.servers.everything]"), "{config}");
    assert!(config.contains("env-value-never-shown"));
    let listed = get(&s, "/v1/apps/mcp/servers").await;
    assert!(!listed.to_string().contains("env-value-never-shown"));
    assert_eq!(listed["servers"].as_array().unwrap().len(), 2);

    // A tools listing starts them. It waits 2 s at most, then says
    // `starting`: npx on a loaded machine can take longer than that.
    get(&s, "/v1/apps/mcp/tools?server=fs").await;
    until_status(&s, "fs", "ready").await;
    let tools = get(&s, "/v1/apps/mcp/tools?server=fs").await;
    let names = exposed(&tools);
    assert!(
        names.contains(&"mcp__fs__read_text_file".to_string()),
        "{names:?}"
    );
    assert_eq!(tools["servers"][0]["status"], "ready");
    assert!(tools["tools"][0]["needs_approval"] == false);

    // A turn: the model is offered both servers' tools; the untrusted one's
    // call waits for approval, the trusted one's runs unasked.
    s.mock.push(tool_call(
        "mcp__everything__echo",
        json!({"message": "hello through MCP"}),
    ));
    s.mock.push(tool_call(
        "mcp__fs__read_text_file",
        json!({"path": workspace.join("notes.txt")}),
    ));
    s.mock.push(Reply::text(&["done"]));
    let mut reader = s.events_from_now().await;
    s.start("use the tools").await;
    let required = reader.payload("approval.required").await;
    assert_eq!(required["tool_name"], "mcp__everything__echo");
    assert!(
        required["description"]
            .as_str()
            .unwrap()
            .contains("hello through MCP"),
        "{required}"
    );
    let approval = required["approval_id"].as_str().unwrap();
    s.api
        .decide_approval(approval, json!({"decision": "allow"}))
        .await;
    let events = reader.until("turn.completed").await;
    let calls = events.items("tool_call");
    let echo = calls
        .iter()
        .find(|i| i["metadata"]["tool"] == "mcp__everything__echo" && i["status"] == "completed")
        .expect("the echo call");
    assert!(echo["detail"]
        .as_str()
        .unwrap()
        .contains("hello through MCP"));
    assert_eq!(
        echo["metadata"]["arguments"],
        json!({"message": "hello through MCP"}).to_string()
    );
    let read = calls
        .iter()
        .find(|i| i["metadata"]["tool"] == "mcp__fs__read_text_file" && i["status"] == "completed")
        .expect("the filesystem call");
    assert!(read["detail"]
        .as_str()
        .unwrap()
        .contains("FILESYSTEM-CONTENT"));
    // After the echo's approval, none: the trusted server's call ran unasked.
    assert_eq!(events.count("approval.required"), 0, "fs is trusted");
    let first = offered(&s, 0);
    assert!(first.contains(&"mcp__everything__echo".to_string()));
    assert!(first.contains(&"mcp__fs__read_text_file".to_string()));
    assert!(first.contains(&"read_file".to_string()), "ours stay");

    // The server's environment got the configured variable; codewhale's
    // own secrets were scrubbed (the harness's token is in its env only
    // under CODEWHALE_* names, never passed on).
    s.mock
        .push(tool_call("mcp__everything__get-env", json!({})));
    s.mock.push(Reply::text(&["seen"]));
    let mut reader = s.events_from_now().await;
    s.start("env").await;
    let required = reader.payload("approval.required").await;
    s.api
        .decide_approval(
            required["approval_id"].as_str().unwrap(),
            json!({"decision": "allow"}),
        )
        .await;
    let events = reader.until("turn.completed").await;
    let env = events.last_item("tool_call");
    let env = env["detail"].as_str().unwrap();
    assert!(env.contains("env-value-never-shown"), "{env}");
    assert!(!env.contains("CODEWHALE_RUNTIME_TOKEN"), "{env}");

    // Switched off: not offered, stopped.
    let patched = s
        .api
        .patch("/v1/apps/mcp/servers/everything", json!({"enabled": false}))
        .await;
    assert_eq!(patched.status, 200, "{}", patched.text());
    assert_eq!(patched.json()["status"], "disabled");
    let before = s.mock.requests().len();
    s.mock.push(Reply::text(&["plain"]));
    s.run("no everything now").await;
    let now = offered(&s, before);
    assert!(!now.iter().any(|n| n.starts_with("mcp__everything__")));
    assert!(now.contains(&"mcp__fs__read_text_file".to_string()));

    // Deleted: gone from the file and the list.
    let deleted = s
        .api
        .request(
            reqwest::Method::DELETE,
            "/v1/apps/mcp/servers/everything",
            None,
        )
        .await;
    assert_eq!(deleted.status, 204);
    let config = std::fs::read_to_string(home.join("config.toml")).unwrap();
    assert!(!config.contains("everything"), "{config}");
    assert_eq!(
        s.api.get("/v1/apps/mcp/servers/everything").await.status,
        404
    );
}

#[tokio::test]
async fn a_server_that_crashes_mid_call_is_reported_and_started_again_on_next_use() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().canonicalize().unwrap();
    let s = setup_in_workspace(&workspace, json!({})).await;
    add(
        &s,
        json!({ "name": "flaky", "command": node(), "args": flaky(&[]), "trusted": true }),
    )
    .await;

    s.mock.push(tool_call("mcp__flaky__count", json!({})));
    s.mock.push(tool_call("mcp__flaky__crash", json!({})));
    s.mock.push(Reply::text(&["it crashed"]));
    let events = s.run("count then crash").await;
    let calls = events.items("tool_call");
    let count = calls
        .iter()
        .find(|i| i["metadata"]["tool"] == "mcp__flaky__count" && i["status"] == "completed")
        .unwrap();
    assert!(count["detail"].as_str().unwrap().starts_with("call 1 of"));
    let crash = calls
        .iter()
        .find(|i| i["metadata"]["tool"] == "mcp__flaky__crash" && i["status"] == "failed")
        .expect("the crashed call fails");
    assert!(
        crash["detail"].as_str().unwrap().contains("stopped"),
        "{crash}"
    );
    assert_eq!(events.completed_turn()["status"], "completed");

    let server = get(&s, "/v1/apps/mcp/servers/flaky").await;
    assert_ne!(server["status"], "ready", "{server}");
    assert!(
        server["last_error"].as_str().unwrap().contains("stopped"),
        "{server}"
    );
    assert_eq!(server["starts"], 1);

    // The next turn starts it again: a new process counts from 1.
    s.mock.push(tool_call("mcp__flaky__count", json!({})));
    s.mock.push(Reply::text(&["again"]));
    let events = s.run("count again").await;
    let count = events.last_item("tool_call");
    assert_eq!(count["status"], "completed", "{count}");
    assert!(count["detail"].as_str().unwrap().starts_with("call 1 of"));
    let server = until_status(&s, "flaky", "ready").await;
    assert_eq!(server["starts"], 2);
}

#[tokio::test]
async fn servers_that_never_answer_cost_only_their_timeouts() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().canonicalize().unwrap();
    let s = setup_in_workspace(&workspace, json!({})).await;
    add(
        &s,
        json!({
            "name": "mute", "command": node(), "args": flaky(&["mute"]),
            "startup_timeout_seconds": 1,
        }),
    )
    .await;
    add(
        &s,
        json!({
            "name": "slow", "command": node(), "args": flaky(&[]),
            "trusted": true, "tool_timeout_seconds": 1,
        }),
    )
    .await;

    // The mute server is left out after its start-up timeout; the other's
    // hanging call fails after its tool timeout, and the turn goes on.
    s.mock.push(tool_call("mcp__slow__hang", json!({})));
    s.mock.push(Reply::text(&["moved on"]));
    let started = std::time::Instant::now();
    let events = s.run("hang").await;
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert_eq!(events.completed_turn()["status"], "completed");
    let hang = events.last_item("tool_call");
    assert_eq!(hang["status"], "failed");
    assert!(
        hang["detail"]
            .as_str()
            .unwrap()
            .contains("did not answer within 1 s"),
        "{hang}"
    );
    let tools = offered(&s, 0);
    assert!(!tools.iter().any(|n| n.starts_with("mcp__mute__")));
    assert!(tools.contains(&"mcp__slow__count".to_string()));

    let mute = get(&s, "/v1/apps/mcp/servers/mute").await;
    assert_eq!(mute["status"], "failed");
    assert!(
        mute["last_error"].as_str().unwrap().contains("within 1 s"),
        "{mute}"
    );
    // A hung call is not a crash: the server still serves.
    let slow = get(&s, "/v1/apps/mcp/servers/slow").await;
    assert_eq!(slow["status"], "ready", "{slow}");
    assert!(slow["last_error"]
        .as_str()
        .unwrap()
        .contains("did not answer"));

    // Within its back-off the failed server is not waited on again, and a
    // listing answers at once with where it stands.
    let started = std::time::Instant::now();
    let listing = get(&s, "/v1/apps/mcp/tools").await;
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    assert!(exposed(&listing).contains(&"mcp__slow__hang".to_string()));
    // A reload tries it again at once (and it fails again).
    let reloaded = s.api.post_empty("/v1/apps/mcp/servers/mute/reload").await;
    assert_eq!(reloaded.status, 200);
    let mute = until_status(&s, "mute", "failed").await;
    assert_eq!(mute["starts"], 2);
}

#[tokio::test]
async fn bad_and_hostile_requests_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().canonicalize().unwrap();
    let s = setup_in_workspace(&workspace, json!({})).await;
    let home = s._h.home.path().to_path_buf();
    let bad = [
        json!({"name": "has space", "command": "x"}),
        json!({"name": "both", "command": "x", "url": "http://127.0.0.1:9/"}),
        json!({"name": "neither"}),
        json!({"name": "env", "command": "x", "env": {"1BAD": "v"}}),
        json!({"name": "hdr", "url": "http://127.0.0.1:9/", "headers": {"X": "a\nb"}}),
        json!({"name": "slow", "command": "x", "startup_timeout_seconds": 0}),
        json!({"name": "extra", "command": "x", "surprise": true}),
    ];
    for body in bad {
        let reply = s.api.post("/v1/apps/mcp/servers", &body).await;
        assert_eq!(reply.status, 400, "{body}: {}", reply.text());
    }
    let misfit = [
        json!({"name": "ftp", "url": "ftp://h/"}),
        json!({"name": "mixed", "url": "http://127.0.0.1:9/", "args": ["a"]}),
        json!({"name": "rel", "command": "x", "cwd": "relative/dir"}),
    ];
    for body in misfit {
        let reply = s.api.post("/v1/apps/mcp/servers", &body).await;
        assert_eq!(reply.status, 409, "{body}: {}", reply.text());
    }
    assert!(
        !home.join("config.toml").exists() || {
            let text = std::fs::read_to_string(home.join("config.toml")).unwrap();
            !text.contains("mcp")
        }
    );

    add(
        &s,
        json!({"name": "web", "url": "https://me:pw@mcp.example.com/mcp",
        "headers": {"Authorization": "Bearer header-secret"}}),
    )
    .await;
    let again = s
        .api
        .post(
            "/v1/apps/mcp/servers",
            json!({"name": "web", "command": "x"}),
        )
        .await;
    assert_eq!(again.status, 409);
    let web = get(&s, "/v1/apps/mcp/servers/web").await;
    assert_eq!(web["url"], "https://mcp.example.com/mcp");
    assert_eq!(web["headers"], json!(["Authorization"]));
    assert!(!web.to_string().contains("header-secret"));
    let wrong = s
        .api
        .patch("/v1/apps/mcp/servers/web", json!({"command": "x"}))
        .await;
    assert_eq!(wrong.status, 409, "{}", wrong.text());
    let missing = s
        .api
        .patch("/v1/apps/mcp/servers/nope", json!({"trusted": true}))
        .await;
    assert_eq!(missing.status, 404);
    assert_eq!(
        s.api.get("/v1/apps/mcp/tools?server=nope").await.status,
        404
    );

    // No credentials, a foreign Host, a cross-site browser: refused, and
    // nothing added.
    let h = &s._h;
    let body =
        json!({"name": "evil", "command": "sh", "args": ["-c", "touch /tmp/pwned"]}).to_string();
    let bearer = format!("Bearer {}", common::TOKEN);
    let cookie = format!("codewhale_runtime_token={}", common::TOKEN);
    let json_type = ("content-type", "application/json");
    let attempts: [(Vec<(&str, &str)>, u16); 3] = [
        (vec![json_type], 401),
        (
            vec![
                json_type,
                ("authorization", &bearer),
                ("host", "attacker.example"),
            ],
            421,
        ),
        (
            vec![
                json_type,
                ("cookie", &cookie),
                ("origin", "http://attacker.example"),
                ("sec-fetch-site", "cross-site"),
            ],
            403,
        ),
    ];
    for (headers, status) in attempts {
        for path in ["/v1/apps/mcp/servers", "/v1/apps/mcp/servers/web/reload"] {
            let reply = h.request("POST", path, &headers, body.clone()).await;
            assert_eq!(reply.status, status, "{path} {headers:?}");
        }
    }
    let servers = get(&s, "/v1/apps/mcp/servers").await;
    assert_eq!(servers["servers"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn read_only_modes_take_only_tools_that_say_they_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().canonicalize().unwrap();
    std::fs::write(workspace.join("plan.txt"), "PLAN-CONTENT\n").unwrap();
    let s = setup_in_workspace(&workspace, json!({"mode": "plan"})).await;
    add(
        &s,
        json!({
            "name": "fs", "command": node(), "trusted": true,
            "args": [node_module("@modelcontextprotocol/server-filesystem/dist/index.js"), workspace],
        }),
    )
    .await;
    add(
        &s,
        json!({
            "name": "everything", "command": node(),
            "args": [node_module("@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
        }),
    )
    .await;
    // A trusted read runs unasked; a trusted write is neither offered nor
    // run when called anyway; an untrusted read-only tool is asked for.
    s.mock.push(tool_call(
        "mcp__fs__read_text_file",
        json!({"path": workspace.join("plan.txt")}),
    ));
    s.mock.push(tool_call(
        "mcp__fs__write_file",
        json!({"path": workspace.join("new.txt"), "content": "x"}),
    ));
    s.mock.push(tool_call(
        "mcp__everything__echo",
        json!({"message": "asked"}),
    ));
    s.mock.push(Reply::text(&["planned"]));
    let mut reader = s.events_from_now().await;
    s.start("plan it").await;
    let required = reader.payload("approval.required").await;
    assert_eq!(required["tool_name"], "mcp__everything__echo");
    s.api
        .decide_approval(
            required["approval_id"].as_str().unwrap(),
            json!({"decision": "allow"}),
        )
        .await;
    reader.until("turn.completed").await;
    let detail = s.detail().await;
    let calls: Vec<_> = detail
        .items
        .iter()
        .filter(|i| i.kind == protocol::ItemKind::ToolCall)
        .collect();
    let status = |tool: &str| {
        let item = calls
            .iter()
            .find(|i| i.metadata["tool"] == tool)
            .unwrap_or_else(|| panic!("{tool} in {calls:?}"));
        (
            item.status.as_str().to_string(),
            item.detail.clone().unwrap_or_default(),
        )
    };
    let read = status("mcp__fs__read_text_file");
    assert_eq!(read.0, "completed");
    assert!(read.1.contains("PLAN-CONTENT"));
    let write = status("mcp__fs__write_file");
    assert_eq!(write.0, "failed");
    assert!(write.1.contains("read-only"), "{}", write.1);
    assert!(!workspace.join("new.txt").exists());
    assert_eq!(status("mcp__everything__echo").0, "completed");
    let tools = offered(&s, 0);
    assert!(tools.contains(&"mcp__fs__read_text_file".to_string()));
    assert!(!tools.contains(&"mcp__fs__write_file".to_string()));
    assert!(!tools.contains(&"mcp__everything__toggle-simulated-logging".to_string()));
}

#[tokio::test]
async fn a_url_server_never_shows_its_credentials_even_in_errors() {
    let dir = tempfile::tempdir().unwrap();
    let s = setup_in_workspace(dir.path(), json!({})).await;
    let added = add(
        &s,
        json!({
            "name": "web", "url": "http://user:pw-secret-1@127.0.0.1:9/mcp?key=q-secret-2",
            "headers": {"Authorization": "Bearer header-secret-3"},
            "startup_timeout_seconds": 2,
        }),
    )
    .await;
    assert_eq!(added["url"], "http://127.0.0.1:9/mcp");
    let listing = get(&s, "/v1/apps/mcp/tools").await;
    let web = &listing["servers"][0];
    assert_eq!(web["status"], "failed", "{web}");
    let text = listing.to_string() + &get(&s, "/v1/apps/mcp/servers").await.to_string();
    for secret in ["pw-secret-1", "q-secret-2", "header-secret-3"] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
}
