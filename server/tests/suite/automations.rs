//! `/v1/automations` with the runtime's clock moved by hand: interval and
//! cron runs, pause and resume, no overlapping runs, the one catch-up run
//! after downtime, and refusals. Runs are real tasks run by the real agent
//! against the mock provider.

use crate::common;

use chrono::{DateTime, Utc};
use codewhale::runtime::{automations::CatchUp, engine::NoProvider, Runtime, RuntimeOptions};
use common::agent::{setup_with, Setup};
use mock_provider::Reply;
use serde_json::{json, Value};
use std::{sync::Arc, time::Duration};

const HOUR: Duration = Duration::from_secs(3600);

async fn create(s: &Setup, body: Value) -> Value {
    let reply = s.api.post("/v1/automations", &body).await;
    assert_eq!(reply.status, 201, "{}", reply.text());
    reply.json()
}

async fn runs(s: &Setup, id: &str) -> Vec<Value> {
    let reply = s.api.get(&format!("/v1/automations/{id}/runs")).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    reply.json().as_array().unwrap().clone()
}

/// Polls until the automation has `count` runs (10 s at most).
async fn until_runs(s: &Setup, id: &str, count: usize) -> Vec<Value> {
    for _ in 0..200 {
        let runs = runs(s, id).await;
        if runs.len() >= count {
            assert_eq!(runs.len(), count, "{runs:?}");
            return runs;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!(
        "automation {id} never had {count} runs: {:?}",
        runs(s, id).await
    );
}

/// Polls until the run's task has `status` (10 s at most).
async fn until_task(s: &Setup, task: &Value, status: &str) -> Value {
    let id = task["id"].as_str().unwrap();
    for _ in 0..200 {
        let task = s.api.get(&format!("/v1/tasks/{id}")).await.json();
        if task["status"] == status {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("task {id} never became {status}");
}

fn time(value: &Value) -> DateTime<Utc> {
    value.as_str().unwrap().parse().unwrap()
}

fn id(value: &Value) -> String {
    value["id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn interval_runs_come_on_time_once_each_and_skip_missed_stretches() {
    let s = setup_with(json!({})).await;
    let clock = &s._h.clock;
    let auto = create(
        &s,
        json!({ "name": "hourly", "prompt": "check the build", "interval_seconds": 3600, "auto_approve": true }),
    )
    .await;
    let auto_id = id(&auto);
    assert!(auto_id.starts_with("auto_"));
    assert_eq!(auto["state"], "active");
    assert_eq!(auto["description"], "Every hour");
    let first = time(&auto["next_run_at"]);
    let lead = first - clock.wall();
    assert!(lead > chrono::TimeDelta::minutes(59) && lead <= chrono::TimeDelta::hours(1));
    // Not due yet: nothing runs.
    assert!(s
        ._h
        .state
        .runtime
        .run_due_automations()
        .await
        .unwrap()
        .is_empty());

    s.mock.push(Reply::text(&["Build is green."]));
    clock.advance(HOUR);
    let run = until_runs(&s, &auto_id, 1).await.remove(0);
    assert_eq!(run["trigger"], "schedule");
    assert_eq!(time(&run["scheduled_for"]), first);
    let task = until_task(&s, &run["task"], "completed").await;
    assert_eq!(task["answer"], "Build is green.");
    assert_eq!(task["auto_approve"], true);
    let thread = s.api.thread(task["thread_id"].as_str().unwrap()).await;
    assert_eq!(thread.turns.len(), 1);
    let auto = s
        .api
        .get(&format!("/v1/automations/{auto_id}"))
        .await
        .json();
    assert_eq!(
        time(&auto["next_run_at"]),
        first + chrono::TimeDelta::hours(1)
    );
    assert!(auto["last_run_at"].is_string());

    // Three hours pass at once: one run, and the next keeps the rhythm.
    s.mock.push(Reply::text(&["Still green."]));
    clock.advance(3 * HOUR);
    let latest = until_runs(&s, &auto_id, 2).await.remove(0);
    until_task(&s, &latest["task"], "completed").await;
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert_eq!(runs(&s, &auto_id).await.len(), 2);
    let auto = s
        .api
        .get(&format!("/v1/automations/{auto_id}"))
        .await
        .json();
    let next = time(&auto["next_run_at"]);
    assert!(next > clock.wall());
    assert_eq!(next, first + chrono::TimeDelta::hours(4));
}

#[tokio::test]
async fn cron_schedules_follow_their_zone_and_pause_and_resume() {
    let s = setup_with(json!({})).await;
    let clock = &s._h.clock;
    let auto = create(
        &s,
        json!({ "name": "nightly", "prompt": "summarize", "schedule": "30 2 * * *", "timezone": "Asia/Tokyo" }),
    )
    .await;
    let auto_id = id(&auto);
    assert_eq!(auto["timezone"], "Asia/Tokyo");
    assert!(auto["description"].as_str().unwrap().contains("Asia/Tokyo"));
    // 02:30 in Tokyo is 17:30 UTC.
    let next = time(&auto["next_run_at"]);
    assert_eq!(next.format("%H:%M").to_string(), "17:30");
    assert!(next > clock.wall() && next - clock.wall() <= chrono::TimeDelta::days(1));
    let local = auto["next_run_local"].as_str().unwrap();
    assert!(local.ends_with("T02:30:00+09:00"), "{local}");

    // Paused: its time passes and nothing runs.
    let paused = s
        .api
        .post_empty(&format!("/v1/automations/{auto_id}/pause"))
        .await;
    assert_eq!(paused.status, 200);
    assert_eq!(paused.json()["state"], "paused");
    assert!(paused.json()["next_run_at"].is_null());
    clock.advance(Duration::from_secs(26 * 3600));
    assert!(s
        ._h
        .state
        .runtime
        .run_due_automations()
        .await
        .unwrap()
        .is_empty());
    assert!(runs(&s, &auto_id).await.is_empty());

    // Resumed: the next 02:30 Tokyo after now; the paused one is not made up.
    let resumed = s
        .api
        .post_empty(&format!("/v1/automations/{auto_id}/resume"))
        .await
        .json();
    assert_eq!(resumed["state"], "active");
    let next = time(&resumed["next_run_at"]);
    assert!(next > clock.wall());
    assert_eq!(next.format("%H:%M").to_string(), "17:30");
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert!(runs(&s, &auto_id).await.is_empty());

    s.mock.push(Reply::text(&["Summary."]));
    clock.advance(Duration::from_secs(
        (next - clock.wall()).num_seconds() as u64 + 1,
    ));
    let run = until_runs(&s, &auto_id, 1).await.remove(0);
    assert_eq!(time(&run["scheduled_for"]), next);
    until_task(&s, &run["task"], "completed").await;

    // A new schedule counts from now.
    let patched = s
        .api
        .patch(
            &format!("/v1/automations/{auto_id}"),
            json!({ "interval_seconds": 600 }),
        )
        .await;
    assert_eq!(patched.status, 200, "{}", patched.text());
    let patched = patched.json();
    assert!(patched["schedule"].is_null());
    assert_eq!(patched["description"], "Every 10 minutes");
    let lead = time(&patched["next_run_at"]) - clock.wall();
    assert!(lead > chrono::TimeDelta::minutes(9) && lead <= chrono::TimeDelta::minutes(10));
}

#[tokio::test]
async fn an_automation_never_runs_twice_at_once() {
    let s = setup_with(json!({})).await;
    let clock = &s._h.clock;
    let auto = create(
        &s,
        json!({ "name": "slow", "prompt": "take your time", "interval_seconds": 60 }),
    )
    .await;
    let auto_id = id(&auto);
    s.mock.push(Reply::Stream {
        chunks: (0..40)
            .map(|i| mock_provider::Chunk::Text {
                text: format!("w{i} "),
            })
            .chain([mock_provider::Chunk::Finish {
                reason: "stop".into(),
            }])
            .collect(),
        delay_ms: 100,
    });
    let manual = s
        .api
        .post_empty(&format!("/v1/automations/{auto_id}/run"))
        .await;
    assert_eq!(manual.status, 201, "{}", manual.text());
    let manual = manual.json();
    assert_eq!(manual["trigger"], "manual");
    assert!(manual["scheduled_for"].is_null());
    until_task(&s, &manual["task"], "running").await;

    // While it runs: a second manual run is refused, a scheduled one skipped.
    let again = s
        .api
        .post_empty(&format!("/v1/automations/{auto_id}/run"))
        .await;
    assert_eq!(again.status, 409, "{}", again.text());
    clock.advance(Duration::from_secs(61));
    let all = until_runs(&s, &auto_id, 2).await;
    assert_eq!(all[0]["trigger"], "schedule", "{all:#?}");
    assert!(all[0]["skipped"].as_str().unwrap().contains("still"));
    assert!(all[0]["task"].is_null());
    let tasks = s.api.get("/v1/tasks").await.json();
    assert_eq!(tasks.as_array().unwrap().len(), 1);

    // Once it ended, the next scheduled run goes ahead.
    until_task(&s, &manual["task"], "completed").await;
    s.mock.push(Reply::text(&["Next."]));
    clock.advance(Duration::from_secs(60));
    let all = until_runs(&s, &auto_id, 3).await;
    assert!(all[0]["skipped"].is_null());
    until_task(&s, &all[0]["task"], "completed").await;
}

fn options(home: &std::path::Path, clock: &codewhale::clock::Clock) -> RuntimeOptions {
    RuntimeOptions {
        home: home.to_path_buf(),
        engine: Arc::new(NoProvider),
        pricing: Default::default(),
        default_workspace: std::env::current_dir().unwrap(),
        wait_timeout: common::WAIT_TIMEOUT,
        clock: clock.clone(),
        sub_agents: Default::default(),
    }
}

/// Starts the scheduler on `home` as a restarted process would, waits for
/// its catch-up, and stops it.
async fn restart(
    home: &std::path::Path,
    clock: &codewhale::clock::Clock,
    catch_up: CatchUp,
    auto_id: &str,
    runs_expected: usize,
) -> Vec<protocol::AutomationRun> {
    let runtime = Arc::new(Runtime::open(options(home, clock)).await.unwrap());
    runtime.run_automations(catch_up);
    let query = || protocol::ListAutomationRuns::default();
    let mut runs = Vec::new();
    for _ in 0..100 {
        runs = runtime.automation_runs(auto_id, query()).await.unwrap();
        if runs.len() >= runs_expected {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Another pass of the scheduler adds nothing.
    assert!(runtime.run_due_automations().await.unwrap().is_empty());
    runtime.stop_streams();
    runtime.close().await;
    drop(runtime);
    tokio::time::sleep(Duration::from_millis(100)).await;
    runs
}

#[tokio::test]
async fn runs_missed_while_down_are_made_up_once_or_skipped() {
    let home = tempfile::tempdir().unwrap();
    let clock = codewhale::clock::Clock::default();
    let auto_id = {
        let runtime = Runtime::open(options(home.path(), &clock)).await.unwrap();
        let auto = runtime
            .create_automation(protocol::CreateAutomation {
                name: "hourly".into(),
                prompt: "check".into(),
                interval_seconds: Some(3600),
                ..Default::default()
            })
            .await
            .unwrap();
        runtime.close().await;
        auto.id
    };
    // Down for five hours: one catch-up run, then the schedule goes on.
    clock.advance(5 * HOUR);
    let runs = restart(home.path(), &clock, CatchUp::One, &auto_id, 1).await;
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0].trigger, protocol::RunTrigger::CatchUp);
    assert!(runs[0].task.is_some());
    // Down again, with catch-up off: the missed run is recorded skipped.
    // (The first run's task is still queued: nobody ran the queue, which
    // would also skip it as an overlap, so it is cancelled first.)
    {
        let runtime = Runtime::open(options(home.path(), &clock)).await.unwrap();
        runtime
            .cancel_task(runs[0].task_id.as_deref().unwrap())
            .await
            .unwrap();
        runtime.close().await;
    }
    clock.advance(5 * HOUR);
    let runs = restart(home.path(), &clock, CatchUp::None, &auto_id, 2).await;
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert_eq!(runs[0].trigger, protocol::RunTrigger::CatchUp);
    assert!(runs[0]
        .skipped
        .as_deref()
        .unwrap()
        .contains("catch-up is off"));
    assert!(runs[0].task.is_none());
    let runtime = Runtime::open(options(home.path(), &clock)).await.unwrap();
    let auto = runtime.automation(&auto_id).await.unwrap();
    let next: DateTime<Utc> = auto.next_run_at.unwrap().parse().unwrap();
    assert!(next > clock.wall());
}

#[tokio::test]
async fn bad_automation_requests_are_refused() {
    let s = setup_with(json!({})).await;
    let base = json!({ "name": "n", "prompt": "p" });
    let with = |extra: Value| {
        let mut body = base.clone();
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        body
    };
    let cases = [
        (base.clone(), 400),
        // A cron expression or zone this server cannot read is a 409 (the
        // OpenAPI document cannot state cron's grammar); the rest are 400s.
        (with(json!({ "schedule": "* * * *" })), 409),
        (with(json!({ "schedule": "0 0 0 * * *" })), 409),
        (with(json!({ "schedule": "0 0 30 2 *" })), 409),
        (
            with(json!({ "schedule": "0 9 * * *", "interval_seconds": 60 })),
            400,
        ),
        (with(json!({ "interval_seconds": 59 })), 400),
        (
            with(json!({ "interval_seconds": 60, "timezone": "Mars/Olympus" })),
            409,
        ),
        (with(json!({ "interval_seconds": 60, "name": " " })), 400),
        (with(json!({ "interval_seconds": 60, "prompt": "" })), 400),
        (
            with(json!({ "interval_seconds": 60, "workspace": "/no/such/dir" })),
            409,
        ),
        (with(json!({ "interval_seconds": 60, "surprise": 1 })), 400),
    ];
    for (body, status) in cases {
        let reply = s.api.post("/v1/automations", &body).await;
        assert_eq!(reply.status, status, "{body}: {}", reply.text());
    }
    assert_eq!(s.api.get("/v1/automations").await.json(), json!([]));
    for path in ["", "/runs"] {
        assert_eq!(
            s.api
                .get(&format!("/v1/automations/auto_nope{path}"))
                .await
                .status,
            404
        );
    }
    for action in ["run", "pause", "resume"] {
        let reply = s
            .api
            .post_empty(&format!("/v1/automations/auto_nope/{action}"))
            .await;
        assert_eq!(reply.status, 404);
    }

    // The preview explains a schedule before it is saved.
    let preview = s
        .api
        .get("/v1/automations/preview?schedule=0%209%20*%20*%201-5&timezone=Europe/Paris")
        .await;
    assert_eq!(preview.status, 200, "{}", preview.text());
    let preview = preview.json();
    assert_eq!(preview["next_runs"].as_array().unwrap().len(), 5);
    assert!(preview["next_runs"][0]
        .as_str()
        .unwrap()
        .contains("T09:00:00+0"));
    assert!(preview["description"]
        .as_str()
        .unwrap()
        .contains("Europe/Paris"));
    assert_eq!(
        s.api
            .get("/v1/automations/preview?schedule=nope")
            .await
            .status,
        409
    );
    assert_eq!(s.api.get("/v1/automations/preview").await.status, 409);

    // Patch, then delete: its history goes, 404 after.
    let auto = create(&s, with(json!({ "interval_seconds": 60 }))).await;
    let path = format!("/v1/automations/{}", id(&auto));
    assert_eq!(s.api.patch(&path, json!({})).await.status, 400);
    assert_eq!(
        s.api
            .patch(
                &path,
                json!({ "schedule": "0 9 * * *", "interval_seconds": 60 })
            )
            .await
            .status,
        400
    );
    let renamed = s
        .api
        .patch(&path, json!({ "name": "renamed", "auto_approve": true }))
        .await;
    assert_eq!(renamed.status, 200);
    assert_eq!(renamed.json()["name"], "renamed");
    assert_eq!(renamed.json()["next_run_at"], auto["next_run_at"]);
    assert_eq!(s.api.get(&format!("{path}/runs?limit=0")).await.status, 400);
    let deleted = s.api.request(reqwest::Method::DELETE, &path, None).await;
    assert_eq!(deleted.status, 204);
    assert_eq!(s.api.get(&path).await.status, 404);
}

/// Reached only as `/v1` is: no credentials, a foreign Host, and a valid
/// token cookie sent from another site are refused, on `/v1/automations`
/// and on the workbench's server functions alike, and create nothing.
#[tokio::test]
async fn hostile_automation_requests_are_refused() {
    let s = setup_with(json!({})).await;
    let h = &s._h;
    let body = r#"{"name":"x","prompt":"rm -rf","interval_seconds":60}"#;
    let json = ("content-type", "application/json");
    let form = ("content-type", "application/x-www-form-urlencoded");
    let fn_body =
        "draft[name]=x&draft[prompt]=rm&draft[interval_seconds]=60&draft[auto_approve]=true";
    let bearer = format!("Bearer {}", common::TOKEN);
    let auth = ("authorization", bearer.as_str());
    assert_eq!(
        h.request("POST", "/v1/automations", &[json], body)
            .await
            .status,
        401
    );
    assert_eq!(
        h.request("POST", "/api/create_automation", &[form], fn_body)
            .await
            .status,
        401
    );
    let foreign = [json, auth, ("host", "attacker.example")];
    assert_eq!(
        h.request("POST", "/v1/automations", &foreign, body)
            .await
            .status,
        421
    );
    let cookie = format!("codewhale_runtime_token={}", common::TOKEN);
    let cross_site = [
        ("cookie", cookie.as_str()),
        ("origin", "http://attacker.example"),
        ("sec-fetch-site", "cross-site"),
    ];
    let with = |kind| [kind, cross_site[0], cross_site[1], cross_site[2]];
    assert_eq!(
        h.request("POST", "/v1/automations", &with(json), body)
            .await
            .status,
        403
    );
    assert_eq!(
        h.request("POST", "/api/create_automation", &with(form), fn_body)
            .await
            .status,
        403
    );
    assert_eq!(
        h.request("GET", "/v1/automations", &cross_site, "")
            .await
            .status,
        403
    );
    assert_eq!(s.api.get("/v1/automations").await.json(), json!([]));
}

/// A run that cannot start (its workspace was removed) is recorded with
/// the reason and pauses the automation instead of failing every minute;
/// resuming is refused until the workspace is fixed.
#[tokio::test]
async fn an_automation_whose_workspace_is_gone_pauses_itself() {
    let s = setup_with(json!({})).await;
    let clock = &s._h.clock;
    let dir = tempfile::tempdir().unwrap();
    let auto = create(
        &s,
        json!({ "name": "doomed", "prompt": "p", "interval_seconds": 60, "workspace": dir.path() }),
    )
    .await;
    let auto_id = id(&auto);
    drop(dir);
    clock.advance(Duration::from_secs(61));
    let run = until_runs(&s, &auto_id, 1).await.remove(0);
    let reason = run["skipped"].as_str().unwrap();
    assert!(
        reason.contains("does not exist") && reason.contains("paused"),
        "{reason}"
    );
    let after = s
        .api
        .get(&format!("/v1/automations/{auto_id}"))
        .await
        .json();
    assert_eq!(after["state"], "paused");
    clock.advance(Duration::from_secs(600));
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert_eq!(runs(&s, &auto_id).await.len(), 1);
    let resume = s
        .api
        .post_empty(&format!("/v1/automations/{auto_id}/resume"))
        .await;
    assert_eq!(resume.status, 409, "{}", resume.text());
    // Pointed at a workspace that exists, it resumes.
    let here = std::env::current_dir().unwrap();
    let path = format!("/v1/automations/{auto_id}");
    let patched = s.api.patch(&path, json!({ "workspace": here })).await;
    assert_eq!(patched.status, 200, "{}", patched.text());
    let resumed = s.api.post_empty(&format!("{path}/resume")).await;
    assert_eq!(resumed.status, 200);
    assert_eq!(resumed.json()["state"], "active");
}

/// A patch racing a pause never undoes it: each write is checked against
/// the version it read.
#[tokio::test]
async fn a_patch_racing_a_pause_never_undoes_it() {
    let s = setup_with(json!({})).await;
    let auto = create(
        &s,
        json!({ "name": "r", "prompt": "p", "interval_seconds": 3600 }),
    )
    .await;
    let path = format!("/v1/automations/{}", id(&auto));
    for round in 0..20 {
        let resumed = s.api.post_empty(&format!("{path}/resume")).await;
        assert_eq!(resumed.status, 200);
        let prompt = json!({ "prompt": format!("round {round}") });
        let pause_path = format!("{path}/pause");
        let (patch, pause) =
            tokio::join!(s.api.patch(&path, prompt), s.api.post_empty(&pause_path));
        assert_eq!(patch.status, 200, "{}", patch.text());
        assert_eq!(pause.status, 200, "{}", pause.text());
        let now = s.api.get(&path).await.json();
        assert_eq!(now["state"], "paused", "round {round}: {now}");
        assert_eq!(now["prompt"], format!("round {round}"));
        assert!(now["next_run_at"].is_null());
    }
    // Null clears a model; a missing field leaves it.
    let set = s
        .api
        .patch(&path, json!({ "model": "mock-large", "mode": "plan" }))
        .await
        .json();
    assert_eq!(set["model"], "mock-large");
    let kept = s.api.patch(&path, json!({ "name": "kept" })).await.json();
    assert_eq!(kept["model"], "mock-large");
    let cleared = s
        .api
        .patch(&path, json!({ "model": null, "mode": null }))
        .await
        .json();
    assert!(
        cleared["model"].is_null() && cleared["mode"].is_null(),
        "{cleared}"
    );
}
