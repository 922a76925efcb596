//! `/v1/threads`: every route, status code and validation rule, over HTTP
//! on an ephemeral port.

use crate::common;

use common::{Api, Harness};
use reqwest::Method;
use serde_json::{json, Value};

async fn setup() -> (Harness, Api) {
    let h = Harness::app_server().await;
    let api = h.api().await;
    (h, api)
}

#[tokio::test]
async fn create_fills_defaults_and_records_the_start() {
    let (_h, api) = setup().await;
    let body = json!({"title": "  First  ", "model": "deepseek-v4"});
    let thread = api.create_thread(body).await;
    let id = &thread.id;
    assert!(id.starts_with("thr_"), "{id}");
    assert_eq!(thread.title.as_deref(), Some("First"));
    assert_eq!(thread.model.as_deref(), Some("deepseek-v4"));
    assert_eq!(thread.mode, protocol::Mode::Agent);
    assert!(!thread.archived);
    assert!(!thread.auto_approve);
    assert!(!thread.trust_mode);
    let cwd = std::fs::canonicalize(std::env::current_dir().unwrap()).unwrap();
    assert_eq!(thread.workspace, Some(cwd.display().to_string()));
    assert!(thread.created_at.ends_with('Z'));

    let detail = api.thread(id).await;
    assert_eq!(detail.thread, thread);
    assert_eq!(detail.turns, vec![]);
    assert_eq!(detail.items, vec![]);
    assert!(detail.latest_seq > 0, "thread.started has a seq");
    for pending in [
        detail.pending_approvals,
        detail.pending_user_inputs,
        detail.pending_dynamic_tool_calls,
    ] {
        assert_eq!(pending, Vec::<Value>::new());
    }
}

#[tokio::test]
async fn create_refuses_bad_input_with_400_or_413() {
    let (_h, api) = setup().await;
    let bad_bodies = [
        json!({"mode": "turbo"}),
        json!({"model": "  "}),
        json!({"mode": 3}),
        json!({"allow_shell": "yes"}),
        json!({"no_such_field": true}),
        json!({"title": "x".repeat(161)}),
        json!({"dynamic_tools": [{"description": "nameless"}]}),
        json!({"dynamic_tools": [{"name": "bad name/with slash"}]}),
        json!([1, 2, 3]),
    ];
    for body in bad_bodies {
        let (status, message) = api.try_create_thread(&body).await.error();
        assert_eq!(status, 400, "{body}: {message}");
    }
    // A well-formed path that names no directory here is a conflict with
    // this machine's state, not a malformed request.
    let missing = json!({"workspace": "/definitely/not/here"});
    assert_eq!(api.try_create_thread(&missing).await.error().0, 409);
    let json = Some("application/json");
    let not_json = api.post_bytes("/v1/threads", json, "{not json").await;
    assert_eq!(not_json.error().0, 400);
    let no_content_type = api.post_bytes("/v1/threads", None, "{}").await;
    assert_eq!(no_content_type.error().0, 415);

    let huge = format!("{{\"title\": \"{}\"}}", "a".repeat(16 * 1024 * 1024 + 1));
    let reply = api.post_bytes("/v1/threads", json, huge).await;
    assert_eq!(reply.error().0, 413);

    // Nothing half-written: still no threads.
    let list = api.try_threads("").await.json();
    assert_eq!(list, json!([]));
}

#[tokio::test]
async fn list_is_newest_first_with_archive_filters_and_limits() {
    let (_h, api) = setup().await;
    let mut ids = Vec::new();
    for n in 0..4 {
        let thread = api.create_thread(json!({"title": format!("t{n}")})).await;
        ids.push(thread.id);
        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    }
    api.patch_thread(&ids[1], json!({"archived": true})).await;

    let titles = |query: &'static str| {
        let api = api.clone();
        async move {
            let list = api.threads(query).await;
            list.into_iter()
                .map(|t| t.title.unwrap())
                .collect::<Vec<String>>()
        }
    };
    // t1 was touched last (archived), but is hidden by default.
    assert_eq!(titles("").await, ["t3", "t2", "t0"]);
    assert_eq!(
        titles("?include_archived=true").await,
        ["t1", "t3", "t2", "t0"]
    );
    assert_eq!(titles("?archived_only=true").await, ["t1"]);
    assert_eq!(
        titles("?archived_only=true&include_archived=false").await,
        ["t1"]
    );
    assert_eq!(titles("?limit=2").await, ["t3", "t2"]);
    for bad in [
        "?limit=0",
        "?limit=501",
        "?limit=ten",
        "?include_archived=maybe",
        "?bogus=1",
    ] {
        assert_eq!(api.try_threads(bad).await.error().0, 400, "{bad}");
    }
}

#[tokio::test]
async fn summary_searches_and_reads_git_facts() {
    let (_h, api) = setup().await;
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

    api.create_thread(json!({"title": "In a repo", "workspace": repo.path()}))
        .await;
    api.create_thread(json!({"title": "Outside", "workspace": plain.path()}))
        .await;
    api.create_thread(json!({"title": "100% literal_match", "model": "Kimi"}))
        .await;

    let rows = api.summary(&[]).await;
    let row = |title: &str| {
        let found = rows.iter().find(|r| r.title.as_deref() == Some(title));
        found.unwrap().clone()
    };
    let in_repo = row("In a repo");
    assert_eq!(in_repo.branch.as_deref(), Some("feature/x"));
    assert_eq!(in_repo.head.unwrap().len(), 7);
    assert_eq!(in_repo.dirty, Some(false));
    assert_eq!(in_repo.latest_turn_status, None);
    let outside = row("Outside");
    assert_eq!(
        (outside.branch, outside.head, outside.dirty),
        (None, None, None)
    );

    std::fs::write(repo.path().join("b.txt"), "untracked").unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await; // past the git cache
    let rows = api.summary(&[("search", "REPO")]).await;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].dirty, Some(true));

    for (search, expected) in [
        ("kimi", 1),
        ("100%", 1),
        ("_match", 1),
        ("%", 1),
        ("zzz", 0),
        ("lit\"eral", 0),         // a quote is text, not FTS syntax
        ("\0C\u{f38e}\u{a0}", 0), // the contract's case: a NUL is text too
        ("AL_MATCH", 1),
    ] {
        let rows = api.summary(&[("search", search)]).await;
        assert_eq!(rows.len(), expected, "{search}");
    }
    // The index follows renames in the same write, and ids are searchable.
    api.patch_thread(&outside.id, json!({"title": "Renamed elsewhere"}))
        .await;
    assert!(api.summary(&[("search", "outside")]).await.is_empty());
    let renamed = api.summary(&[("search", "ELSEWHERE")]).await;
    assert_eq!(renamed.len(), 1);
    assert_eq!(renamed[0].id, outside.id);
    let by_id = api.summary(&[("search", &outside.id[4..14])]).await;
    assert_eq!(by_id.len(), 1);
}

/// More matches than the index hands over (1,000): the newest-first walk
/// answers, with the same rows a few-match search would give.
#[tokio::test]
async fn a_search_with_many_matches_pages_newest_first() {
    let (_h, api) = setup().await;
    let mut ids = Vec::new();
    for i in 0..1_010 {
        let title = format!("Dense match {i:04}");
        ids.push(api.create_thread(json!({ "title": title })).await.id);
    }
    // Every thread matches, so the page is the unsearched newest-first
    // page (threads made in the same millisecond fall to the id order).
    let ids_of = |rows: Vec<protocol::ThreadSummary>| -> Vec<String> {
        rows.into_iter().map(|r| r.id).collect()
    };
    let page = ids_of(api.summary(&[("search", "DENSE"), ("limit", "50")]).await);
    let newest = ids_of(api.summary(&[("limit", "50")]).await);
    assert_eq!(page.len(), 50);
    assert_eq!(page, newest);
    assert!(page.contains(ids.last().unwrap()));
    let one = api.summary(&[("search", "match 0007")]).await;
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].id, ids[7]);
}

#[tokio::test]
async fn unknown_and_malformed_ids() {
    let (_h, api) = setup().await;
    let unknown = api.try_thread("thr_0123456789abcdef").await;
    assert_eq!(unknown.error().0, 404);
    for bad in [
        "abc",
        "thr_XYZ",
        "thr_..%2F..%2Fetc",
        "thr_%00",
        "turn_0123",
    ] {
        assert_eq!(api.try_thread(bad).await.error().0, 400, "{bad}");
        let reply = api.try_patch_thread(bad, json!({"title": "x"})).await;
        assert_eq!(reply.error().0, 400, "{bad}");
    }
    let patch = api
        .try_patch_thread("thr_0123456789abcdef", json!({"title": "x"}))
        .await;
    assert_eq!(patch.error().0, 404);
    let wrong_method = api.request(Method::DELETE, "/v1/threads", None).await;
    assert_eq!(wrong_method.error().0, 405);
}

#[tokio::test]
async fn patch_changes_fields_and_validates() {
    let (_h, api) = setup().await;
    let body = json!({"title": "Before", "system_prompt": "Be brief."});
    let thread = api.create_thread(body).await;
    let patch = |body: Value| api.try_patch_thread(&thread.id, body);

    let updated = patch(json!({
        "title": "After", "mode": "plan", "model": "m2", "auto_approve": true,
        "trust_mode": true, "allow_shell": false
    }))
    .await
    .json();
    assert_eq!(updated["title"], "After");
    assert_eq!(updated["mode"], "plan");
    assert_eq!(updated["model"], "m2");
    assert_eq!(updated["auto_approve"], true);
    assert_eq!(updated["trust_mode"], true);
    assert_eq!(updated["allow_shell"], false);
    assert!(updated["updated_at"].as_str().unwrap() >= thread.updated_at.as_str());

    let cleared = patch(json!({"title": "", "system_prompt": ""}))
        .await
        .json();
    assert_eq!(cleared["title"], Value::Null);
    assert_eq!(cleared["system_prompt"], Value::Null);

    for body in [
        json!({}),
        json!({"model": ""}),
        json!({"mode": ""}),
        json!({"mode": "turbo"}),
        json!({"archived": "yes"}),
        json!({"id": "thr_1"}),
    ] {
        let (status, message) = patch(body.clone()).await.error();
        assert_eq!(status, 400, "{body}: {message}");
    }
    // No such directory here: a conflict with this machine's state.
    let (status, message) = patch(json!({"workspace": "/nope/nope"})).await.error();
    assert_eq!(status, 409, "{message}");
}

#[tokio::test]
async fn cors_allows_only_listed_origins_and_exact_headers() {
    let (_h, api) = setup().await;
    let preflight = |origin: &'static str| {
        let request = api
            .http()
            .request(Method::OPTIONS, api.url("/v1/threads"))
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header(
                "access-control-request-headers",
                "authorization, content-type",
            );
        api.send(request)
    };
    let allowed = preflight("http://localhost:3000").await;
    assert!(allowed.status.is_success());
    assert_eq!(
        allowed.header("access-control-allow-origin").as_deref(),
        Some("http://localhost:3000")
    );
    let mut advertised: Vec<String> = allowed
        .header("access-control-allow-headers")
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
    assert!(refused.header("access-control-allow-origin").is_none());
}
