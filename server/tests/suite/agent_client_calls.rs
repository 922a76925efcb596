//! What a turn asks of its client: user input (answers reach the model and
//! nothing else) and client-executed dynamic tools (exactly one terminal
//! event per call, whatever races).

use crate::common;

use common::agent::{setup_with, tool_call as call, Setup};
use mock_provider::{Chunk, Reply};
use serde_json::{json, Value};

const SECRET: &str = "answer-hunter2-7f3a";

fn questions() -> Value {
    json!({"questions": [
        {"id": "db", "header": "Database", "question": "Which database?",
         "options": [{"label": "SQLite", "description": "embedded"}, {"label": "Postgres"}]},
        {"id": "name", "question": "Project name?", "allow_free_text": true}
    ]})
}

fn ide_tool() -> Value {
    json!([{ "namespace": "ide", "name": "open_file", "description": "Open a file in the editor",
             "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}} }])
}

/// The status of answering `input` of `thread` with `body`.
async fn answer(s: &Setup, thread: &str, input: &str, body: &Value) -> u16 {
    let reply = s.api.try_answer_user_input(thread, input, body).await;
    reply.status.as_u16()
}

#[tokio::test]
async fn answers_reach_the_model_and_are_stored_nowhere() {
    let s = setup_with(json!({})).await;
    s.mock.push(call("request_user_input", questions()));
    s.mock.push(Reply::text(&["Going with it."]));
    let mut reader = s.events().await;
    let started = s.start("set up a project").await;

    let required = reader.payload("user_input.required").await;
    let input = required["id"].as_str().unwrap().to_string();
    assert_eq!(
        required["request"]["questions"][0]["options"][0]["label"],
        "SQLite"
    );
    assert_eq!(required["turn_id"], started.turn.id);
    // The snapshot lists it, so a reloading client can still answer.
    let pending = s.detail().await.pending_user_inputs;
    assert_eq!(pending[0]["id"], input.as_str());

    let good = json!({"answers": [
        {"id": "db", "label": "SQLite", "value": "SQLite"},
        {"id": "name", "label": "Other", "value": SECRET}
    ]});
    // Wrong thread, unknown id: 404. Answers that do not fit the questions
    // asked conflict with them (409; the contract test found them as 400s
    // for bodies the document admits), answers over 64 KiB are 413; the
    // question stays pending.
    assert_eq!(answer(&s, "thr_00000000", &input, &good).await, 404);
    assert_eq!(answer(&s, &s.thread, "input_nope", &good).await, 404);
    let partial = json!({"answers": [{"id": "db", "label": "SQLite", "value": "SQLite"}]});
    assert_eq!(answer(&s, &s.thread, &input, &partial).await, 409);
    let not_an_option = json!({"answers": [
        {"id": "db", "label": "x", "value": "MySQL"}, {"id": "name", "label": "", "value": "x"}
    ]});
    assert_eq!(answer(&s, &s.thread, &input, &not_an_option).await, 409);
    let unknown_question = json!({"answers": [
        {"id": "db", "value": "SQLite"}, {"id": "name", "value": "x"}, {"id": "q9", "value": "?"}
    ]});
    assert_eq!(answer(&s, &s.thread, &input, &unknown_question).await, 409);
    let huge = json!({"answers": [
        {"id": "db", "value": "SQLite"}, {"id": "name", "value": "x".repeat(64 * 1024)}
    ]});
    assert_eq!(answer(&s, &s.thread, &input, &huge).await, 413);
    let no_object = json!([{"id": "db", "value": "SQLite"}]);
    assert_eq!(answer(&s, &s.thread, &input, &no_object).await, 400);
    assert_eq!(s.detail().await.pending_user_inputs.len(), 1);

    assert_eq!(answer(&s, &s.thread, &input, &good).await, 200);
    assert_eq!(
        answer(&s, &s.thread, &input, &good).await,
        404,
        "settled once"
    );
    let answered = reader.payload("user_input.answered").await;
    assert_eq!(answered["input_id"], input.as_str());
    reader.until("turn.completed").await;

    // The model got the answers...
    let requests = s.mock.requests();
    let tool_message = requests[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap()
        .clone();
    assert!(tool_message["content"].as_str().unwrap().contains(SECRET));
    assert!(tool_message["content"].as_str().unwrap().contains("SQLite"));
    // ...and no event, record or snapshot holds them.
    let events = s.api.replay(&s.thread).await;
    assert!(!serde_json::to_string(&events).unwrap().contains(SECRET));
    let snapshot = s.api.try_thread(&s.thread).await;
    assert!(!snapshot.text().contains(SECRET));
    let snapshot = snapshot.json();
    assert_eq!(snapshot["pending_user_inputs"], json!([]));
    let item = snapshot["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["metadata"]["tool"] == "request_user_input")
        .unwrap()
        .clone();
    assert_eq!(item["kind"], "tool_call");
    assert_eq!(item["status"], "completed");
    assert_eq!(item["detail"], "User input submitted");
    assert_eq!(item["metadata"]["response_redacted"], true);
    // Not in the database files either (WAL included).
    for file in std::fs::read_dir(s._h.home.path()).unwrap() {
        let raw = std::fs::read(file.unwrap().path()).unwrap_or_default();
        assert!(!String::from_utf8_lossy(&raw).contains(SECRET));
    }
}

#[tokio::test]
async fn an_interrupted_turn_cancels_its_question_and_a_timeout_ends_one() {
    let s = setup_with(json!({})).await;
    s.mock.push(call("request_user_input", questions()));
    let mut reader = s.events().await;
    let started = s.start("ask me").await;
    let input = reader.payload("user_input.required").await["id"].clone();
    s.api.interrupt(&s.thread, &started.turn.id).await;
    let canceled = reader.payload("user_input.canceled").await;
    assert_eq!(canceled["input_id"], input);
    assert_eq!(canceled["terminal"], true);
    reader.until("turn.completed").await;
    assert_eq!(s.detail().await.pending_user_inputs, Vec::<Value>::new());
    let answer =
        json!({"answers": [{"id": "db", "value": "SQLite"}, {"id": "name", "value": "x"}]});
    let late = s
        .api
        .try_answer_user_input(&s.thread, input.as_str().unwrap(), answer)
        .await;
    assert_eq!(late.status, 404);

    // Nobody answers: the wait times out, the model is told, the turn goes on.
    s.mock.push(call("request_user_input", questions()));
    s.mock.push(Reply::text(&["Fine, defaults."]));
    s.start("ask again").await;
    let timed_out = reader.payload("user_input.canceled").await;
    assert_eq!(timed_out["reason"], "timeout");
    let done = reader.payload("turn.completed").await;
    assert_eq!(done["turn"]["status"], "completed");
    let last = s.mock.requests().pop().unwrap();
    assert!(last.to_string().contains("did not answer in time"));
}

#[tokio::test]
async fn invalid_questions_are_refused_to_the_model() {
    let s = setup_with(json!({})).await;
    s.mock
        .push(call("request_user_input", json!({"questions": []})));
    s.mock.push(Reply::text(&["ok"]));
    let mut reader = s.events().await;
    s.start("ask nothing").await;
    let events = reader.until("turn.completed").await;
    assert_eq!(events.count("user_input.required"), 0);
    let last = s.mock.requests().pop().unwrap();
    assert!(last.to_string().contains("ask between 1 and"));
}

#[tokio::test]
async fn a_client_tool_result_reaches_the_model_once() {
    let s = setup_with(json!({ "dynamic_tools": ide_tool() })).await;
    s.mock
        .push(call("ide__open_file", json!({"path": "src/main.rs"})));
    s.mock.push(Reply::text(&["Opened."]));
    let mut reader = s.events().await;
    let started = s.start("open main").await;
    let turn = started.turn.id.as_str();
    // The tool is offered under its namespaced name.
    let requested = reader.payload("tool_call.requested").await;
    let offered = s.mock.requests()[0]["tools"].to_string();
    assert!(offered.contains("ide__open_file"));
    assert_eq!(requested["namespace"], "ide");
    assert_eq!(requested["tool"], "open_file");
    assert_eq!(requested["arguments"]["path"], "src/main.rs");
    assert_eq!(requested["turn_id"], turn);
    let call_id = requested["call_id"].as_str().unwrap().to_string();
    let pending = s.detail().await.pending_dynamic_tool_calls;
    assert_eq!(pending[0]["call_id"], call_id.as_str());

    let result =
        json!({"success": true, "content": [{"type": "input_text", "text": "opened at line 1"}]});
    let (api, thread, call) = (&s.api, s.thread.as_str(), call_id.as_str());
    let unknown = api
        .try_submit_tool_result(thread, "turn_00000000", call, &result)
        .await;
    assert_eq!(unknown.status, 404);
    let bad = json!({"success": true, "content": [{"type": "video", "url": "x"}]});
    assert_eq!(
        api.try_submit_tool_result(thread, turn, call, bad)
            .await
            .status,
        400
    );
    let accepted = api
        .try_submit_tool_result(thread, turn, call, &result)
        .await;
    assert_eq!(accepted.status, 202);
    let duplicate = api
        .try_submit_tool_result(thread, turn, call, &result)
        .await;
    assert_eq!(duplicate.status, 404, "duplicate");
    let resolved = reader.payload("tool_call.resolved").await;
    assert_eq!(resolved["call_id"], call_id.as_str());
    assert_eq!(resolved["result_accepted"], true);
    assert_eq!(resolved["success"], true);
    assert!(
        !resolved.to_string().contains("opened at line 1"),
        "no content in lifecycle events"
    );
    reader.until("turn.completed").await;

    let last = s.mock.requests().pop().unwrap();
    assert!(last.to_string().contains("opened at line 1"));
    let events = s.api.replay(&s.thread).await;
    assert_eq!(events.count("tool_call.requested"), 1);
    assert_eq!(events.count("tool_call.resolved"), 1);
    assert_eq!(
        events.count("tool_call.timeout") + events.count("tool_call.canceled"),
        0
    );
    let pending = s.detail().await.pending_dynamic_tool_calls;
    assert_eq!(pending, Vec::<Value>::new());
}

#[tokio::test]
async fn a_client_tool_times_out_once_and_late_results_are_refused() {
    let s = setup_with(json!({})).await;
    s.mock.push(call("open_file", json!({})));
    s.mock.push(Reply::text(&["No editor, then."]));
    let mut reader = s.events().await;
    // Registered on the turn only.
    let body = json!({"prompt": "open it", "dynamic_tools": [{"name": "open_file", "input_schema": {"type": "object"}}]});
    let turn = s.api.start_turn(&s.thread, body).await.turn.id;
    let call_id = reader.payload("tool_call.requested").await["call_id"].clone();
    let timeout = reader.payload("tool_call.timeout").await;
    assert_eq!(timeout["call_id"], call_id);
    reader.until("turn.completed").await;
    let call_id = call_id.as_str().unwrap();
    let late = s
        .api
        .try_submit_tool_result(&s.thread, &turn, call_id, json!({"success": true}))
        .await;
    assert_eq!(late.status, 404);
    let events = s.api.replay(&s.thread).await;
    assert_eq!(events.count("tool_call.timeout"), 1);
    assert_eq!(
        events.count("tool_call.resolved") + events.count("tool_call.canceled"),
        0
    );
    assert!(s
        .mock
        .requests()
        .pop()
        .unwrap()
        .to_string()
        .contains("did not return a result in time"));
}

/// Result and interrupt race; whichever wins, exactly one terminal event
/// is durable, and 202 is returned exactly when it is `resolved`.
#[tokio::test]
async fn result_and_cancel_race_to_exactly_one_terminal_event() {
    let s = setup_with(json!({ "dynamic_tools": ide_tool() })).await;
    let mut reader = s.events().await;
    for round in 0..6 {
        s.mock.reset(); // an interrupted round leaves its answer unused
        s.mock.push(call("ide__open_file", json!({"path": "a"})));
        s.mock.push(Reply::text(&["done"]));
        let turn = s.start(&format!("round {round}")).await.turn.id;
        let requested = reader.payload("tool_call.requested").await;
        let call_id = requested["call_id"].as_str().unwrap();
        let (api, thread) = (&s.api, s.thread.as_str());
        let result = api.try_submit_tool_result(thread, &turn, call_id, json!({"success": true}));
        let interrupt = api.try_interrupt(thread, &turn);
        // Alternate which request leaves first.
        let (result, _) = if round % 2 == 0 {
            tokio::join!(result, interrupt)
        } else {
            let (i, r) = tokio::join!(interrupt, result);
            (r, i)
        };
        let accepted = result.status == 202;
        assert!(accepted || result.status == 404);
        let events = reader.until("turn.completed").await;
        let resolved = events.count("tool_call.resolved");
        let canceled = events.count("tool_call.canceled");
        assert_eq!(
            resolved + canceled + events.count("tool_call.timeout"),
            1,
            "round {round}"
        );
        assert_eq!(
            resolved == 1,
            accepted,
            "202 exactly when resolved (round {round})"
        );
    }
}

#[tokio::test]
async fn result_and_timeout_race_to_exactly_one_terminal_event() {
    let s = setup_with(json!({ "dynamic_tools": ide_tool() })).await;
    s.mock.push(call("ide__open_file", json!({})));
    s.mock.push(Reply::text(&["done"]));
    let mut reader = s.events().await;
    let turn = s.start("race the clock").await.turn.id;
    let requested = reader.payload("tool_call.requested").await;
    let call_id = requested["call_id"].as_str().unwrap();
    // Post right at the timeout (1.5 s in tests), a few times around it.
    tokio::time::sleep(common::WAIT_TIMEOUT - std::time::Duration::from_millis(20)).await;
    let mut accepted = 0;
    for _ in 0..8 {
        let result = json!({"success": true});
        let reply = s
            .api
            .try_submit_tool_result(&s.thread, &turn, call_id, result)
            .await;
        if reply.status == 202 {
            accepted += 1;
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let events = reader.until("turn.completed").await;
    let resolved = events.count("tool_call.resolved");
    assert_eq!(resolved + events.count("tool_call.timeout"), 1);
    assert_eq!(resolved, accepted);
}

/// Malformed registrations are 400s; names that clash (with a built-in
/// tool, or twice) are conflicts, 409 (the document can say the first,
/// not the second).
#[tokio::test]
async fn bad_tool_registrations_are_400_and_clashes_409() {
    let s = setup_with(json!({})).await;
    let cases = [
        (
            json!([{"name": "read_file", "input_schema": {"type": "object"}}]),
            409,
        ),
        (json!([{"name": "has space"}]), 400),
        (
            json!([{"name": "x", "input_schema": {"type": "array"}}]),
            400,
        ),
        (json!([{"name": "x"}, {"name": "x"}]), 409),
        (json!([{"name": "x", "surprise": true}]), 400),
    ];
    for (tools, status) in cases {
        let thread = s
            .api
            .try_create_thread(json!({ "dynamic_tools": tools }))
            .await;
        assert_eq!(thread.status, status, "{tools}");
        let body = json!({"prompt": "p", "dynamic_tools": tools});
        let turn = s.api.try_start_turn(&s.thread, body).await;
        assert_eq!(turn.status, status, "{tools}");
    }
    // Registered tools are part of the thread record.
    let thread = s
        .api
        .create_thread(json!({ "dynamic_tools": ide_tool() }))
        .await;
    assert_eq!(thread.dynamic_tools[0].namespace.as_deref(), Some("ide"));
}

/// A process that dies with a client tool call or a question pending: the
/// restarted runtime settles it with one terminal receipt before the
/// turn's single turn.completed.
#[tokio::test]
async fn restart_cancels_a_pending_client_tool_call() {
    let canceled = restart_with_pending("ide__open_file", json!({}), "tool_call.canceled").await;
    assert!(canceled["call_id"].as_str().unwrap().starts_with("call_"));
}

#[tokio::test]
async fn restart_cancels_a_pending_question() {
    let canceled =
        restart_with_pending("request_user_input", questions(), "user_input.canceled").await;
    assert!(canceled["input_id"].as_str().unwrap().starts_with("input_"));
}

async fn restart_with_pending(tool: &str, arguments: Value, receipt: &str) -> Value {
    use codewhale::runtime::{Runtime, RuntimeOptions};
    use std::sync::Arc;
    let mock = mock_provider::Mock::default();
    let url = mock.serve(0).await.unwrap();
    let config: codewhale::config::Config = toml::from_str(&format!(
        "default_provider = \"mock\"\n[providers.mock]\nbase_url = \"{url}\"\nmodels = [\"m\"]\n"
    ))
    .unwrap();
    let engine = || {
        Arc::new(codewhale::agent::Agent::new(
            codewhale::provider::Providers::from_config(&config),
        ))
    };
    codewhale::provider::install_tls();
    let home = tempfile::tempdir().unwrap();
    let options = || RuntimeOptions {
        home: home.path().to_path_buf(),
        engine: engine(),
        pricing: Default::default(),
        default_workspace: home.path().to_path_buf(),
        wait_timeout: codewhale::runtime::approvals::DEFAULT_TIMEOUT,
        clock: Default::default(),
        sub_agents: Default::default(),
    };
    let manager = Runtime::open(options()).await.unwrap();
    let create = protocol::CreateThread {
        dynamic_tools: Some(serde_json::from_value(ide_tool()).unwrap()),
        ..Default::default()
    };
    let thread = manager.create_thread(create).await.unwrap();
    mock.push(Reply::Stream {
        chunks: vec![
            Chunk::ToolCall {
                index: 0,
                id: Some("c1".into()),
                name: Some(tool.into()),
                arguments: arguments.to_string(),
            },
            Chunk::Finish {
                reason: "tool_calls".into(),
            },
        ],
        delay_ms: 0,
    });
    let prompt = protocol::StartTurn {
        prompt: "go".into(),
        ..Default::default()
    };
    manager.start_turn(&thread.id, prompt).await.unwrap();
    let pending = loop {
        let detail = manager.thread(&thread.id).await.unwrap();
        let waiting = [
            detail.pending_dynamic_tool_calls,
            detail.pending_user_inputs,
        ]
        .concat();
        if let Some(request) = waiting.first() {
            break request.clone();
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    drop(manager); // the process is gone; the call was never settled

    let restarted = Runtime::open(options()).await.unwrap();
    assert_eq!(restarted.recovered_turns(), 1);
    assert_eq!(Runtime::open(options()).await.unwrap().recovered_turns(), 0);
    let store = restarted.store().clone();
    let events = codewhale::store::events::after(store.pool(), &thread.id, 0, 1000)
        .await
        .unwrap();
    let names: Vec<&str> = events.iter().map(|e| e.event.as_str()).collect();
    let canceled: Vec<Value> = events
        .iter()
        .filter(|e| e.event == receipt)
        .map(|e| serde_json::from_str(&e.payload).unwrap())
        .collect();
    assert_eq!(canceled.len(), 1, "{names:?}");
    assert_eq!(canceled[0]["reason"], "process_restart");
    assert_eq!(canceled[0]["recovered"], true);
    let at = |name: &str| names.iter().position(|n| *n == name).unwrap();
    assert!(at(receipt) < at("turn.completed"));
    assert_eq!(names.iter().filter(|n| **n == "turn.completed").count(), 1);
    assert!(restarted
        .thread(&thread.id)
        .await
        .unwrap()
        .pending_user_inputs
        .is_empty());
    let id = pending["id"].clone();
    assert!(canceled[0]["call_id"] == id || canceled[0]["input_id"] == id);
    canceled[0].clone()
}

/// At most 128 client tool calls wait per thread; the 129th is refused
/// without an event.
#[tokio::test]
async fn at_most_128_client_calls_wait_per_thread() {
    use codewhale::runtime::client_tools::{CallEnd, ClientTools};
    use std::sync::Arc;
    let home = tempfile::tempdir().unwrap();
    let store = Arc::new(codewhale::store::Store::open(home.path()).await.unwrap());
    let thread = codewhale::runtime::threads::create(&store, home.path(), Default::default())
        .await
        .unwrap();
    let tools = Arc::new(ClientTools::new(
        store.clone(),
        std::time::Duration::from_secs(30),
    ));
    let spec: protocol::DynamicToolSpec =
        serde_json::from_value(json!({"name": "t", "input_schema": {"type": "object"}})).unwrap();
    let mut waiting = Vec::new();
    for _ in 0..128 {
        let (tools, spec, thread) = (tools.clone(), spec.clone(), thread.id.clone());
        waiting.push(tokio::spawn(async move {
            tools.call(&thread, "turn_00000001", &spec, json!({})).await
        }));
    }
    while tools.pending_for(&thread.id).await.len() < 128 {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let refused = tools
        .call(&thread.id, "turn_00000001", &spec, json!({}))
        .await
        .unwrap();
    assert!(matches!(refused, CallEnd::Busy));
    // Ending the turn cancels all 128, each once.
    assert_eq!(
        tools
            .cancel_turn("turn_00000001", "turn_ended")
            .await
            .unwrap(),
        128
    );
    for handle in waiting {
        assert!(matches!(handle.await.unwrap().unwrap(), CallEnd::Canceled));
    }
    let events = codewhale::store::events::after(store.pool(), &thread.id, 0, 1000)
        .await
        .unwrap();
    let count = |name: &str| events.iter().filter(|e| e.event == name).count();
    assert_eq!(
        (count("tool_call.requested"), count("tool_call.canceled")),
        (128, 128)
    );
}
