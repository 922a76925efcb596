//! `/v1/threads`: every route, status code and validation rule, over HTTP
//! on an ephemeral port.

mod common;

use common::{api_client, Harness};
use serde_json::{json, Value};

async fn setup() -> (Harness, String, reqwest::Client) {
    let h = Harness::app_server().await;
    let base = h.serve().await;
    (h, base, api_client())
}

async fn create(client: &reqwest::Client, base: &str, body: Value) -> Value {
    let reply = client
        .post(format!("{base}/v1/threads"))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 201, "{body}");
    reply.json().await.unwrap()
}

async fn status_and_error(reply: reqwest::Response) -> (u16, String) {
    let status = reply.status().as_u16();
    let body: Value = reply.json().await.expect("JSON error body");
    assert_eq!(body["error"]["status"], status, "{body}");
    (
        status,
        body["error"]["message"].as_str().unwrap().to_string(),
    )
}

#[tokio::test]
async fn create_fills_defaults_and_records_the_start() {
    let (_h, base, client) = setup().await;
    let thread = create(
        &client,
        &base,
        json!({"title": "  First  ", "model": "deepseek-v4"}),
    )
    .await;
    let id = thread["id"].as_str().unwrap();
    assert!(id.starts_with("thr_"), "{id}");
    assert_eq!(thread["title"], "First");
    assert_eq!(thread["model"], "deepseek-v4");
    assert_eq!(thread["mode"], "agent");
    assert_eq!(thread["archived"], false);
    assert_eq!(thread["auto_approve"], false);
    assert_eq!(thread["trust_mode"], false);
    let cwd = std::fs::canonicalize(std::env::current_dir().unwrap()).unwrap();
    assert_eq!(thread["workspace"], cwd.display().to_string());
    assert!(thread["created_at"].as_str().unwrap().ends_with('Z'));

    let detail: Value = client
        .get(format!("{base}/v1/threads/{id}"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(detail["thread"], thread);
    assert_eq!(detail["turns"], json!([]));
    assert_eq!(detail["items"], json!([]));
    assert!(
        detail["latest_seq"].as_i64().unwrap() > 0,
        "thread.started has a seq"
    );
    for pending in [
        "pending_approvals",
        "pending_user_inputs",
        "pending_dynamic_tool_calls",
    ] {
        assert_eq!(detail[pending], json!([]));
    }
}

#[tokio::test]
async fn create_refuses_bad_input_with_400_or_413() {
    let (_h, base, client) = setup().await;
    let url = format!("{base}/v1/threads");
    let bad_bodies = [
        json!({"mode": "turbo"}),
        json!({"model": "  "}),
        json!({"workspace": "/definitely/not/here"}),
        json!({"mode": 3}),
        json!({"allow_shell": "yes"}),
        json!({"no_such_field": true}),
        json!({"title": "x".repeat(161)}),
        json!({"dynamic_tools": [{"description": "nameless"}]}),
        json!({"dynamic_tools": [{"name": "bad name/with slash"}]}),
        json!([1, 2, 3]),
    ];
    for body in bad_bodies {
        let reply = client.post(&url).json(&body).send().await.unwrap();
        let (status, message) = status_and_error(reply).await;
        assert_eq!(status, 400, "{body}: {message}");
    }
    let not_json = client
        .post(&url)
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(status_and_error(not_json).await.0, 400);
    let no_content_type = client.post(&url).body("{}").send().await.unwrap();
    assert_eq!(status_and_error(no_content_type).await.0, 415);

    let huge = format!("{{\"title\": \"{}\"}}", "a".repeat(16 * 1024 * 1024 + 1));
    let reply = client
        .post(&url)
        .header("content-type", "application/json")
        .body(huge)
        .send()
        .await
        .unwrap();
    assert_eq!(status_and_error(reply).await.0, 413);

    // Nothing half-written: still no threads.
    let list: Value = client.get(&url).send().await.unwrap().json().await.unwrap();
    assert_eq!(list, json!([]));
}

#[tokio::test]
async fn list_is_newest_first_with_archive_filters_and_limits() {
    let (_h, base, client) = setup().await;
    let mut ids = Vec::new();
    for n in 0..4 {
        let thread = create(&client, &base, json!({"title": format!("t{n}")})).await;
        ids.push(thread["id"].as_str().unwrap().to_string());
        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    }
    let patched = client
        .patch(format!("{base}/v1/threads/{}", ids[1]))
        .json(&json!({"archived": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(patched.status(), 200);

    let titles = |list: Value| -> Vec<String> {
        list.as_array()
            .unwrap()
            .iter()
            .map(|t| t["title"].as_str().unwrap().to_string())
            .collect()
    };
    let get = |query: &'static str| {
        let client = client.clone();
        let base = base.clone();
        async move {
            client
                .get(format!("{base}/v1/threads{query}"))
                .send()
                .await
                .unwrap()
        }
    };
    // t1 was touched last (archived), but is hidden by default.
    assert_eq!(
        titles(get("").await.json().await.unwrap()),
        ["t3", "t2", "t0"]
    );
    assert_eq!(
        titles(get("?include_archived=true").await.json().await.unwrap()),
        ["t1", "t3", "t2", "t0"]
    );
    assert_eq!(
        titles(get("?archived_only=true").await.json().await.unwrap()),
        ["t1"]
    );
    assert_eq!(
        titles(
            get("?archived_only=true&include_archived=false")
                .await
                .json()
                .await
                .unwrap()
        ),
        ["t1"]
    );
    assert_eq!(
        titles(get("?limit=2").await.json().await.unwrap()),
        ["t3", "t2"]
    );
    for bad in [
        "?limit=0",
        "?limit=501",
        "?limit=ten",
        "?include_archived=maybe",
        "?bogus=1",
    ] {
        assert_eq!(status_and_error(get(bad).await).await.0, 400, "{bad}");
    }
}

#[tokio::test]
async fn summary_searches_and_reads_git_facts() {
    let (_h, base, client) = setup().await;
    let repo = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args(["-C", repo.path().to_str().unwrap()])
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .output()
            .unwrap();
        assert!(status.status.success(), "git {args:?}");
    };
    git(&["init", "-q", "-b", "feature/x"]);
    std::fs::write(repo.path().join("a.txt"), "a").unwrap();
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "first"]);
    let plain = tempfile::tempdir().unwrap();

    create(
        &client,
        &base,
        json!({"title": "In a repo", "workspace": repo.path()}),
    )
    .await;
    create(
        &client,
        &base,
        json!({"title": "Outside", "workspace": plain.path()}),
    )
    .await;
    create(
        &client,
        &base,
        json!({"title": "100% literal_match", "model": "Kimi"}),
    )
    .await;

    let rows: Value = client
        .get(format!("{base}/v1/threads/summary"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let row = |title: &str| {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["title"] == title)
            .unwrap()
            .clone()
    };
    let in_repo = row("In a repo");
    assert_eq!(in_repo["branch"], "feature/x");
    assert_eq!(in_repo["head"].as_str().unwrap().len(), 7);
    assert_eq!(in_repo["dirty"], false);
    assert_eq!(in_repo["latest_turn_status"], Value::Null);
    let outside = row("Outside");
    assert_eq!(
        (
            outside["branch"].clone(),
            outside["head"].clone(),
            outside["dirty"].clone()
        ),
        (Value::Null, Value::Null, Value::Null)
    );

    std::fs::write(repo.path().join("b.txt"), "untracked").unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await; // past the git cache
    let rows: Value = client
        .get(format!("{base}/v1/threads/summary?search=REPO"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 1);
    assert_eq!(rows[0]["dirty"], true);

    for (search, expected) in [
        ("kimi", 1),
        ("100%", 1),
        ("_match", 1),
        ("%", 1),
        ("zzz", 0),
    ] {
        let rows: Value = client
            .get(format!("{base}/v1/threads/summary"))
            .query(&[("search", search)])
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(rows.as_array().unwrap().len(), expected, "{search}");
    }
}

#[tokio::test]
async fn unknown_and_malformed_ids() {
    let (_h, base, client) = setup().await;
    let unknown = client
        .get(format!("{base}/v1/threads/thr_0123456789abcdef"))
        .send()
        .await
        .unwrap();
    assert_eq!(status_and_error(unknown).await.0, 404);
    for bad in [
        "abc",
        "thr_XYZ",
        "thr_..%2F..%2Fetc",
        "thr_%00",
        "turn_0123",
    ] {
        let reply = client
            .get(format!("{base}/v1/threads/{bad}"))
            .send()
            .await
            .unwrap();
        assert_eq!(status_and_error(reply).await.0, 400, "{bad}");
        let reply = client
            .patch(format!("{base}/v1/threads/{bad}"))
            .json(&json!({"title": "x"}))
            .send()
            .await
            .unwrap();
        assert_eq!(status_and_error(reply).await.0, 400, "{bad}");
    }
    let patch = client
        .patch(format!("{base}/v1/threads/thr_0123456789abcdef"))
        .json(&json!({"title": "x"}))
        .send()
        .await
        .unwrap();
    assert_eq!(status_and_error(patch).await.0, 404);
    let wrong_method = client
        .delete(format!("{base}/v1/threads"))
        .send()
        .await
        .unwrap();
    assert_eq!(status_and_error(wrong_method).await.0, 405);
}

#[tokio::test]
async fn patch_changes_fields_and_validates() {
    let (_h, base, client) = setup().await;
    let thread = create(
        &client,
        &base,
        json!({"title": "Before", "system_prompt": "Be brief."}),
    )
    .await;
    let url = format!("{base}/v1/threads/{}", thread["id"].as_str().unwrap());
    let patch = |body: Value| {
        let client = client.clone();
        let url = url.clone();
        async move { client.patch(&url).json(&body).send().await.unwrap() }
    };

    let updated: Value = patch(json!({
        "title": "After", "mode": "plan", "model": "m2", "auto_approve": true,
        "trust_mode": true, "allow_shell": false
    }))
    .await
    .json()
    .await
    .unwrap();
    assert_eq!(updated["title"], "After");
    assert_eq!(updated["mode"], "plan");
    assert_eq!(updated["model"], "m2");
    assert_eq!(updated["auto_approve"], true);
    assert_eq!(updated["trust_mode"], true);
    assert_eq!(updated["allow_shell"], false);
    assert!(updated["updated_at"].as_str().unwrap() >= thread["updated_at"].as_str().unwrap());

    let cleared: Value = patch(json!({"title": "", "system_prompt": ""}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(cleared["title"], Value::Null);
    assert_eq!(cleared["system_prompt"], Value::Null);

    for body in [
        json!({}),
        json!({"model": ""}),
        json!({"mode": ""}),
        json!({"mode": "turbo"}),
        json!({"workspace": "/nope/nope"}),
        json!({"archived": "yes"}),
        json!({"id": "thr_1"}),
    ] {
        let (status, message) = status_and_error(patch(body.clone()).await).await;
        assert_eq!(status, 400, "{body}: {message}");
    }
}

#[tokio::test]
async fn cors_allows_only_listed_origins_and_exact_headers() {
    let (_h, base, client) = setup().await;
    let preflight = |origin: &'static str| {
        let client = client.clone();
        let base = base.clone();
        async move {
            client
                .request(reqwest::Method::OPTIONS, format!("{base}/v1/threads"))
                .header("origin", origin)
                .header("access-control-request-method", "POST")
                .header(
                    "access-control-request-headers",
                    "authorization, content-type",
                )
                .send()
                .await
                .unwrap()
        }
    };
    let allowed = preflight("http://localhost:3000").await;
    assert!(allowed.status().is_success());
    assert_eq!(
        allowed.headers()["access-control-allow-origin"],
        "http://localhost:3000"
    );
    let mut advertised: Vec<String> = allowed.headers()["access-control-allow-headers"]
        .to_str()
        .unwrap()
        .split(',')
        .map(|h| h.trim().to_lowercase())
        .collect();
    advertised.sort();
    assert_eq!(
        advertised,
        [
            "accept",
            "authorization",
            "content-type",
            "x-codewhale-runtime-token",
            "x-deepseek-runtime-token"
        ]
    );
    let refused = preflight("http://evil.example").await;
    assert!(refused
        .headers()
        .get("access-control-allow-origin")
        .is_none());
}
