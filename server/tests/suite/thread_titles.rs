//! What a thread shows before anyone names it: a title from its first
//! prompt (never over one a user set), and the model its turns will use.

use crate::common;

use common::{
    agent::{setup, setup_with},
    Harness,
};
use mock_provider::Reply;
use serde_json::json;

#[tokio::test]
async fn the_first_prompt_titles_the_thread_and_later_ones_do_not() {
    let s = setup(None).await;
    s.mock.push(Reply::text(&["Looking."]));
    s.mock.push(Reply::text(&["Done."]));
    let prompt = "  Why does   the release build\tfail on CI?\n\nHere is the log: …";
    let (started, events) = s.api.run_turn(&s.thread, json!({ "prompt": prompt })).await;
    let title = "Why does the release build fail on CI?";
    assert_eq!(started.thread.title.as_deref(), Some(title));

    // Recorded with the turn's start, after the prompt, as an update the
    // rail and header follow.
    let names = events.names();
    assert_eq!(
        &names[..4],
        [
            "turn.started",
            "item.started",
            "item.completed",
            "thread.updated"
        ]
    );
    let updated = &events.find("thread.updated")["payload"];
    assert_eq!(updated["changed"], json!(["title"]));
    assert_eq!(updated["thread"]["title"], title);

    let events = s
        .run("Now fix it, please, in a completely different way")
        .await;
    assert_eq!(events.count("thread.updated"), 0);
    assert_eq!(s.detail().await.thread.title.as_deref(), Some(title));
    let summary = s.api.summary(&[]).await;
    assert_eq!(summary[0].title.as_deref(), Some(title));
}

#[tokio::test]
async fn a_long_first_prompt_becomes_one_short_line() {
    let s = setup(None).await;
    s.mock.push(Reply::text(&["ok"]));
    let prompt = "Please refactor the approval flow so that remembered decisions also \
                  apply to turns that are already running";
    let (started, _) = s.api.run_turn(&s.thread, json!({ "prompt": prompt })).await;
    let title = started.thread.title.unwrap();
    assert_eq!(
        title,
        "Please refactor the approval flow so that remembered…"
    );
    assert!(title.chars().count() <= 60, "{title}");
}

#[tokio::test]
async fn a_title_the_user_set_wins() {
    // Set when the thread was created.
    let s = setup_with(json!({ "title": "Mine" })).await;
    s.mock.push(Reply::text(&["ok"]));
    let (started, events) = s
        .api
        .run_turn(&s.thread, json!({ "prompt": "Theirs" }))
        .await;
    assert_eq!(started.thread.title.as_deref(), Some("Mine"));
    assert_eq!(events.count("thread.updated"), 0);

    // Renamed before the first turn.
    let s = setup(None).await;
    s.api
        .patch_thread(&s.thread, json!({ "title": "Renamed" }))
        .await;
    s.mock.push(Reply::text(&["ok"]));
    s.run("Not this").await;
    assert_eq!(s.detail().await.thread.title.as_deref(), Some("Renamed"));

    // Renamed after it: later turns leave the new name alone.
    s.api
        .patch_thread(&s.thread, json!({ "title": "Renamed again" }))
        .await;
    s.mock.push(Reply::text(&["ok"]));
    s.run("Nor this").await;
    assert_eq!(
        s.detail().await.thread.title.as_deref(),
        Some("Renamed again")
    );
}

#[tokio::test]
async fn the_snapshot_names_the_model_turns_will_use() {
    // No model on the thread: the default provider's (its first model).
    let s = setup(None).await;
    assert_eq!(
        s.detail().await.effective_model.as_deref(),
        Some("mock-large")
    );
    s.mock.push(Reply::text(&["ok"]));
    let (started, _) = s.api.run_turn(&s.thread, json!({ "prompt": "hi" })).await;
    assert_eq!(started.turn.effective_model.as_deref(), Some("mock-large"));

    // The thread's own model, at creation or by a later PATCH.
    let s = setup_with(json!({ "model": "mock-small" })).await;
    assert_eq!(
        s.detail().await.effective_model.as_deref(),
        Some("mock-small")
    );
    s.api
        .patch_thread(&s.thread, json!({ "model": "mock-tiny" }))
        .await;
    assert_eq!(
        s.detail().await.effective_model.as_deref(),
        Some("mock-tiny")
    );

    // No provider can run a turn: none is claimed.
    let h = Harness::app_server().await;
    let api = h.api().await;
    let thread = api.create_thread(json!({})).await;
    let detail = api.thread(&thread.id).await;
    assert_eq!(detail.effective_model, None);
    let raw = api.try_thread(&thread.id).await;
    let body: serde_json::Value = serde_json::from_slice(&raw.body).unwrap();
    assert!(body["effective_model"].is_null(), "{body}");
}
