//! A typed client for the `/v1` API over a real socket (`Harness::api`, or
//! `Api::new(base)` for a server in another process): one method per
//! route, answering with the wire types of `protocol`; a `try_` twin of each
//! that returns the raw `Reply` for tests of refusals; and the thread's
//! event stream (`EventReader`, `Events`).
//!
//! A typed method asserts the route's success status (naming the request
//! and the body it got) before it parses the answer.

use super::{EventReader, Harness, Reply, TOKEN};
use protocol::{ThreadDetail, ThreadRecord, ThreadSummary, TurnRecord, TurnStarted, UsageReport};
use reqwest::Method;
use serde::{de::DeserializeOwned, Serialize};
use serde_json::Value;

/// A reqwest client that sends `token` as a bearer token (if any).
pub fn http_client(token: Option<&str>) -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    if let Some(token) = token {
        headers.insert(
            reqwest::header::AUTHORIZATION,
            format!("Bearer {token}").parse().unwrap(),
        );
    }
    codewhale::provider::install_tls();
    reqwest::Client::builder()
        .default_headers(headers)
        .timeout(std::time::Duration::from_secs(30))
        .build()
        .unwrap()
}

#[derive(Clone)]
pub struct Api {
    http: reqwest::Client,
    base: String,
}

impl Harness {
    /// Serves this harness on an ephemeral port; a client for it that
    /// sends the runtime token.
    pub async fn api(&self) -> Api {
        Api::new(self.serve().await)
    }
}

impl Api {
    /// The server at `base` (`http://127.0.0.1:port`), with the test token.
    pub fn new(base: impl Into<String>) -> Self {
        Self::with_token(base, Some(TOKEN))
    }

    /// The server at `base`, sending `token` (or no credentials at all).
    pub fn with_token(base: impl Into<String>, token: Option<&str>) -> Self {
        Self {
            http: http_client(token),
            base: base.into(),
        }
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    /// The underlying client (it sends the token), for requests with
    /// headers of their own; see `send`.
    pub fn http(&self) -> &reqwest::Client {
        &self.http
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    // ----- raw requests: the whole reply, whatever its status -----

    /// Sends `request` and reads the whole reply.
    pub async fn send(&self, request: reqwest::RequestBuilder) -> Reply {
        let response = request.send().await.expect("the request is sent");
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.bytes().await.expect("the body is read").to_vec();
        Reply {
            status,
            headers,
            body,
        }
    }

    /// `method path`, with `body` as JSON if there is one.
    pub async fn request(&self, method: Method, path: &str, body: Option<&Value>) -> Reply {
        let mut request = self.http.request(method, self.url(path));
        if let Some(body) = body {
            request = request.json(body);
        }
        self.send(request).await
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.send(self.http.get(self.url(path))).await
    }

    /// POST with a JSON body.
    pub async fn post(&self, path: &str, body: impl Serialize) -> Reply {
        self.send(self.http.post(self.url(path)).json(&body)).await
    }

    /// POST with no body and no content type.
    pub async fn post_empty(&self, path: &str) -> Reply {
        self.send(self.http.post(self.url(path))).await
    }

    /// POST with these bytes, declared as `content_type` (or undeclared).
    pub async fn post_bytes(
        &self,
        path: &str,
        content_type: Option<&str>,
        body: impl Into<reqwest::Body>,
    ) -> Reply {
        let mut request = self.http.post(self.url(path)).body(body);
        if let Some(content_type) = content_type {
            request = request.header("content-type", content_type);
        }
        self.send(request).await
    }

    pub async fn patch(&self, path: &str, body: impl Serialize) -> Reply {
        self.send(self.http.patch(self.url(path)).json(&body)).await
    }

    // ----- threads -----

    /// `GET /v1/threads{query}` (query: `""` or `"?limit=2"`...).
    pub async fn threads(&self, query: &str) -> Vec<ThreadRecord> {
        expect(self.try_threads(query).await, 200, "GET /v1/threads")
    }

    pub async fn try_threads(&self, query: &str) -> Reply {
        self.get(&format!("/v1/threads{query}")).await
    }

    /// `GET /v1/threads/summary` with these query parameters (encoded here).
    pub async fn summary(&self, query: &[(&str, &str)]) -> Vec<ThreadSummary> {
        let request = self.http.get(self.url("/v1/threads/summary")).query(query);
        expect(self.send(request).await, 200, "GET /v1/threads/summary")
    }

    /// `POST /v1/threads`: 201.
    pub async fn create_thread(&self, body: impl Serialize) -> ThreadRecord {
        expect(self.try_create_thread(body).await, 201, "POST /v1/threads")
    }

    pub async fn try_create_thread(&self, body: impl Serialize) -> Reply {
        self.post("/v1/threads", body).await
    }

    /// `GET /v1/threads/{id}`: the snapshot.
    pub async fn thread(&self, id: &str) -> ThreadDetail {
        expect(self.try_thread(id).await, 200, &format!("GET thread {id}"))
    }

    pub async fn try_thread(&self, id: &str) -> Reply {
        self.get(&format!("/v1/threads/{id}")).await
    }

    /// `PATCH /v1/threads/{id}`: 200.
    pub async fn patch_thread(&self, id: &str, body: impl Serialize) -> ThreadRecord {
        let reply = self.try_patch_thread(id, body).await;
        expect(reply, 200, &format!("PATCH thread {id}"))
    }

    pub async fn try_patch_thread(&self, id: &str, body: impl Serialize) -> Reply {
        self.patch(&format!("/v1/threads/{id}"), body).await
    }

    /// `POST /v1/threads/{id}/fork`: 201, the new thread.
    pub async fn fork(&self, id: &str) -> ThreadRecord {
        expect(self.try_fork(id).await, 201, &format!("fork {id}"))
    }

    pub async fn try_fork(&self, id: &str) -> Reply {
        self.post_empty(&format!("/v1/threads/{id}/fork")).await
    }

    /// `POST /v1/threads/{id}/resume`: 200.
    pub async fn resume(&self, id: &str) -> ThreadRecord {
        expect(self.try_resume(id).await, 200, &format!("resume {id}"))
    }

    pub async fn try_resume(&self, id: &str) -> Reply {
        self.post_empty(&format!("/v1/threads/{id}/resume")).await
    }

    // ----- turns -----

    /// `POST /v1/threads/{thread}/turns`: 201.
    pub async fn start_turn(&self, thread: &str, body: impl Serialize) -> TurnStarted {
        let reply = self.try_start_turn(thread, body).await;
        expect(reply, 201, &format!("start a turn on {thread}"))
    }

    pub async fn try_start_turn(&self, thread: &str, body: impl Serialize) -> Reply {
        self.post(&format!("/v1/threads/{thread}/turns"), body)
            .await
    }

    /// `POST .../turns/{turn}/steer`: 200, the turn.
    pub async fn steer(&self, thread: &str, turn: &str, body: impl Serialize) -> TurnRecord {
        let reply = self.try_steer(thread, turn, body).await;
        expect(reply, 200, &format!("steer {turn}"))
    }

    pub async fn try_steer(&self, thread: &str, turn: &str, body: impl Serialize) -> Reply {
        self.post(&format!("/v1/threads/{thread}/turns/{turn}/steer"), body)
            .await
    }

    /// `POST .../turns/{turn}/interrupt` (no body): 200, the turn.
    pub async fn interrupt(&self, thread: &str, turn: &str) -> TurnRecord {
        let reply = self.try_interrupt(thread, turn).await;
        expect(reply, 200, &format!("interrupt {turn}"))
    }

    pub async fn try_interrupt(&self, thread: &str, turn: &str) -> Reply {
        self.post_empty(&format!("/v1/threads/{thread}/turns/{turn}/interrupt"))
            .await
    }

    /// `POST /v1/threads/{thread}/compact`: 202, the compaction's turn.
    pub async fn compact(&self, thread: &str, body: impl Serialize) -> TurnStarted {
        let body = serde_json::to_value(body).unwrap();
        let reply = self.try_compact(thread, Some(body)).await;
        expect(reply, 202, &format!("compact {thread}"))
    }

    /// With `None`, no body at all (the body is optional).
    pub async fn try_compact(&self, thread: &str, body: Option<Value>) -> Reply {
        let path = format!("/v1/threads/{thread}/compact");
        self.request(Method::POST, &path, body.as_ref()).await
    }

    // ----- what a turn waits for -----

    /// `POST /v1/approvals/{approval}`: 200.
    pub async fn decide_approval(&self, approval: &str, body: impl Serialize) -> Value {
        let reply = self.try_decide_approval(approval, body).await;
        expect(reply, 200, &format!("decide {approval}"))
    }

    pub async fn try_decide_approval(&self, approval: &str, body: impl Serialize) -> Reply {
        self.post(&format!("/v1/approvals/{approval}"), body).await
    }

    /// `POST /v1/user-input/{thread}/{input}`: 200.
    pub async fn answer_user_input(
        &self,
        thread: &str,
        input: &str,
        body: impl Serialize,
    ) -> Value {
        let reply = self.try_answer_user_input(thread, input, body).await;
        expect(reply, 200, &format!("answer {input}"))
    }

    pub async fn try_answer_user_input(
        &self,
        thread: &str,
        input: &str,
        body: impl Serialize,
    ) -> Reply {
        self.post(&format!("/v1/user-input/{thread}/{input}"), body)
            .await
    }

    /// `POST .../turns/{turn}/tool-calls/{call}/result`: 202.
    pub async fn submit_tool_result(
        &self,
        thread: &str,
        turn: &str,
        call: &str,
        body: impl Serialize,
    ) -> Value {
        let reply = self.try_submit_tool_result(thread, turn, call, body).await;
        expect(reply, 202, &format!("result of {call}"))
    }

    pub async fn try_submit_tool_result(
        &self,
        thread: &str,
        turn: &str,
        call: &str,
        body: impl Serialize,
    ) -> Reply {
        let path = format!("/v1/threads/{thread}/turns/{turn}/tool-calls/{call}/result");
        self.post(&path, body).await
    }

    // ----- usage -----

    /// `GET /v1/usage{query}` (query: `""` or `"?group_by=model"`...).
    pub async fn usage(&self, query: &str) -> UsageReport {
        expect(self.try_usage(query).await, 200, &format!("usage{query}"))
    }

    pub async fn try_usage(&self, query: &str) -> Reply {
        self.get(&format!("/v1/usage{query}")).await
    }

    // ----- events -----

    /// `GET /v1/threads/{thread}/events{query}` with extra `headers`.
    pub async fn open_events(
        &self,
        thread: &str,
        query: &str,
        headers: &[(&str, &str)],
    ) -> EventReader {
        let url = self.url(&format!("/v1/threads/{thread}/events{query}"));
        EventReader::open(&self.http, &url, headers).await
    }

    /// The whole stream: history, then live.
    pub async fn events(&self, thread: &str) -> EventReader {
        self.open_events(thread, "", &[]).await
    }

    /// The events after `seq`.
    pub async fn events_since(&self, thread: &str, seq: i64) -> EventReader {
        self.open_events(thread, &format!("?since_seq={seq}"), &[])
            .await
    }

    /// The events after the snapshot's `latest_seq`: from now on.
    pub async fn events_from_now(&self, thread: &str) -> EventReader {
        let latest = self.thread(thread).await.latest_seq;
        self.events_since(thread, latest).await
    }

    /// Every event of the thread so far (up to the snapshot's
    /// `latest_seq`), replayed from the store.
    pub async fn replay(&self, thread: &str) -> Events {
        let latest = self.thread(thread).await.latest_seq;
        self.events(thread).await.through(latest).await
    }

    /// Starts a turn with `body` and follows it to its `turn.completed`.
    pub async fn run_turn(&self, thread: &str, body: impl Serialize) -> (TurnStarted, Events) {
        let mut reader = self.events_from_now(thread).await;
        let started = self.start_turn(thread, body).await;
        (started, reader.until("turn.completed").await)
    }
}

/// Asserts `status` (naming `what` and showing the body), then parses.
fn expect<T: DeserializeOwned>(reply: Reply, status: u16, what: &str) -> T {
    assert_eq!(reply.status, status, "{what}: {}", reply.text());
    serde_json::from_slice(&reply.body)
        .unwrap_or_else(|e| panic!("{what}: unexpected body ({e}): {}", reply.text()))
}

/// Events as a stream delivered them, in order: (SSE event name, envelope).
/// Dereferences to the `Vec`.
#[derive(Debug, Default, Serialize)]
pub struct Events(pub Vec<(String, Value)>);

impl std::ops::Deref for Events {
    type Target = Vec<(String, Value)>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for Events {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl Events {
    pub fn names(&self) -> Vec<&str> {
        self.iter().map(|(n, _)| n.as_str()).collect()
    }

    /// How many events are called `name`.
    pub fn count(&self, name: &str) -> usize {
        self.iter().filter(|(n, _)| n == name).count()
    }

    /// The first event called `name`.
    pub fn find(&self, name: &str) -> &Value {
        self.iter()
            .find(|(n, _)| n == name)
            .map(|(_, e)| e)
            .unwrap_or_else(|| panic!("no {name} in {:?}", self.names()))
    }

    /// The payloads of the events called `name`, in order.
    pub fn payloads(&self, name: &str) -> Vec<&Value> {
        self.iter()
            .filter(|(n, _)| n == name)
            .map(|(_, e)| &e["payload"])
            .collect()
    }

    /// The concatenated deltas of items of `kind`.
    pub fn text(&self, kind: &str) -> String {
        self.iter()
            .filter(|(n, e)| n == "item.delta" && e["payload"]["kind"] == kind)
            .map(|(_, e)| e["payload"]["delta"].as_str().unwrap())
            .collect()
    }

    /// The concatenated deltas of every item.
    pub fn all_text(&self) -> String {
        self.iter()
            .filter(|(n, _)| n == "item.delta")
            .map(|(_, e)| e["payload"]["delta"].as_str().unwrap())
            .collect()
    }

    /// The items of `kind` that `item.completed` or `item.failed` carried,
    /// in order.
    pub fn items(&self, kind: &str) -> Vec<Value> {
        self.iter()
            .filter(|(n, e)| {
                (n == "item.completed" || n == "item.failed")
                    && e["payload"]["item"]["kind"] == kind
            })
            .map(|(_, e)| e["payload"]["item"].clone())
            .collect()
    }

    /// The last finished item of `kind`.
    pub fn last_item(&self, kind: &str) -> Value {
        self.items(kind)
            .pop()
            .unwrap_or_else(|| panic!("no {kind} item"))
    }

    /// The first item of `kind` that `item.completed` carried.
    pub fn completed_item(&self, kind: &str) -> Value {
        self.iter()
            .find(|(n, e)| n == "item.completed" && e["payload"]["item"]["kind"] == kind)
            .map(|(_, e)| e["payload"]["item"].clone())
            .unwrap_or_else(|| panic!("no completed {kind} item"))
    }

    /// The turn of the last `turn.completed`.
    pub fn completed_turn(&self) -> &Value {
        self.iter()
            .rev()
            .find(|(n, _)| n == "turn.completed")
            .map(|(_, e)| &e["payload"]["turn"])
            .unwrap_or_else(|| panic!("no turn.completed in {:?}", self.names()))
    }
}
