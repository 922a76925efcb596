//! Fuzz-style: every `/v1` route with malformed ids, bodies and queries,
//! generated from a fixed seed so a failure replays. Nothing may answer 5xx
//! or panic, and every refusal is the JSON error envelope with its status.

use crate::common;

use common::Harness;

const BEARER: &str = "Bearer cwrt_test_token_0123456789abcdef";

/// Route templates: `{}` is replaced by an id.
const ROUTES: [(&str, &str); 53] = [
    ("GET", "/v1/threads"),
    ("POST", "/v1/threads"),
    ("GET", "/v1/threads/summary"),
    ("GET", "/v1/threads/{}"),
    ("PATCH", "/v1/threads/{}"),
    ("GET", "/v1/threads/{}/events"),
    ("POST", "/v1/threads/{}/fork"),
    ("POST", "/v1/threads/{}/resume"),
    ("POST", "/v1/threads/{}/turns"),
    ("POST", "/v1/threads/{}/turns/{}/steer"),
    ("POST", "/v1/threads/{}/turns/{}/interrupt"),
    ("POST", "/v1/threads/{}/compact"),
    ("POST", "/v1/threads/{}/turns/{}/tool-calls/{}/result"),
    ("POST", "/v1/approvals/{}"),
    ("POST", "/v1/user-input/{}/{}"),
    ("GET", "/v1/usage"),
    ("DELETE", "/v1/threads/{}"),
    ("GET", "/v1/devices"),
    ("PATCH", "/v1/devices/{}"),
    ("DELETE", "/v1/devices/{}"),
    ("POST", "/v1/devices/pairings"),
    ("GET", "/v1/snapshots"),
    ("GET", "/v1/threads/{}/snapshots"),
    ("POST", "/v1/threads/{}/snapshots/restore"),
    ("POST", "/v1/threads/{}/undo"),
    ("POST", "/v1/threads/{}/retry"),
    ("POST", "/v1/threads/{}/edit-last-turn"),
    ("POST", "/v1/threads/{}/fork-at-user-message"),
    ("POST", "/v1/threads/{}/review/apply"),
    ("POST", "/v1/threads/{}/review/revert"),
    ("GET", "/v1/threads/{}/workspace/browse"),
    ("GET", "/v1/threads/{}/workspace/file"),
    ("GET", "/v1/threads/{}/workspace/diff"),
    ("GET", "/v1/workspace/browse"),
    ("GET", "/v1/workspace/file"),
    ("GET", "/v1/workspace/status"),
    ("GET", "/v1/skills"),
    ("POST", "/v1/skills"),
    ("POST", "/v1/skills/import"),
    ("PATCH", "/v1/skills/{}"),
    ("GET", "/v1/apps/mcp/servers"),
    ("POST", "/v1/apps/mcp/servers"),
    ("GET", "/v1/apps/mcp/servers/{}"),
    ("PATCH", "/v1/apps/mcp/servers/{}"),
    ("DELETE", "/v1/apps/mcp/servers/{}"),
    ("POST", "/v1/apps/mcp/servers/{}/reload"),
    ("GET", "/v1/apps/mcp/tools"),
    ("GET", "/v1/sessions"),
    ("GET", "/v1/sessions/{}"),
    ("DELETE", "/v1/sessions/{}"),
    ("POST", "/v1/sessions/{}/resume-thread"),
    ("POST", "/v1/threads/{}/persist-session"),
    ("GET", "/v1/diagnostics/config"),
];

const IDS: [&str; 12] = [
    "%FF",
    "%00",
    "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "..",
    "thr_%FF%FE",
    "'%20OR%201=1--",
    "%E2%80%AE",
    "thr_0000000000000000",
    "%25",
    "a%2Fb",
    "%C0%AF",
    "", // replaced by a 4 KiB id
];

const QUERIES: [&str; 15] = [
    "",
    "?since_seq=-1",
    "?since_seq=abc",
    "?since_seq=99999999999999999999999",
    "?replay_limit=-5&since_seq=0",
    "?limit=abc",
    "?limit=-1&search=%FF",
    "?include_archived=maybe",
    "?archived_only=1&include_archived=yes",
    "?since=yesterday&until=%00&group_by=planet",
    "?%ZZ=1",
    "?search=%25%25%25&limit=99999999999",
    "?path=..%2F..%2F..%2Fetc%2Fpasswd&workspace=%2F",
    "?path=%00&workspace=.",
    "?workspace=%FF&path=%2Fproc%2Fself%2Fenviron",
];

fn bodies() -> Vec<String> {
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    vec![
        String::new(),
        "{".into(),
        "null".into(),
        "[]".into(),
        "\"text\"".into(),
        "{\"model\": 5, \"title\": []}".into(),
        "{\"unknown_field\": true}".into(),
        "{\"prompt\": null}".into(),
        "{\"prompt\": \"\", \"mode\": \"root\"}".into(),
        "{\"decision\": \"maybe\", \"remember\": \"yes\"}".into(),
        "{\"answers\": {\"q\": {\"answers\": [1, 2]}}}".into(),
        "{\"output\": 5, \"success\": \"no\"}".into(),
        deep,
        "{\"title\": \"\u{0}\u{202e}\"}".into(),
        String::from_utf8_lossy(&[0xff, 0xfe, 0x7b]).into_owned(),
    ]
}

/// A small deterministic generator (xorshift), so failures replay.
struct Seeded(u64);

impl Seeded {
    fn index(&mut self, len: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % len as u64) as usize
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.index(items.len())]
    }
}

#[tokio::test]
async fn malformed_requests_never_answer_5xx() {
    let h = Harness::app_server().await;
    let bodies = bodies();
    let long_id = "x".repeat(4096);
    let content_types = [
        "application/json",
        "text/plain",
        "application/x-www-form-urlencoded",
    ];
    let mut random = Seeded(0x5eed_c0de_cafe_f00d);
    let mut checked = 0;
    for (method, template) in ROUTES {
        for round in 0..40 {
            let mut path = String::new();
            for (i, part) in template.split("{}").enumerate() {
                if i > 0 {
                    let id = random.pick(&IDS);
                    path.push_str(if id.is_empty() { &long_id } else { id });
                }
                path.push_str(part);
            }
            let query = random.pick(&QUERIES);
            path.push_str(query);
            let body = if method == "GET" && round % 2 == 0 {
                String::new()
            } else {
                bodies[random.index(bodies.len())].clone()
            };
            let headers = [
                ("authorization", BEARER),
                ("content-type", random.pick(&content_types)),
                ("last-event-id", random.pick(&["-3", "abc", "1", "%FF"])),
            ];
            let reply = h.request(method, &path, &headers, body.clone()).await;
            let what = format!(
                "{method} {path} body {:?}",
                body.chars().take(60).collect::<String>()
            );
            assert!(
                reply.status.as_u16() < 500,
                "{what}: {} {}",
                reply.status,
                reply.text()
            );
            if reply.status.is_client_error() {
                let json: serde_json::Value = serde_json::from_slice(&reply.body)
                    .unwrap_or_else(|_| panic!("{what}: not JSON: {}", reply.text()));
                assert_eq!(json["error"]["status"], reply.status.as_u16(), "{what}");
                assert!(
                    json["error"]["message"]
                        .as_str()
                        .is_some_and(|m| !m.is_empty()),
                    "{what}"
                );
            } else {
                // Only the lists and reports accept a malformed query's
                // well-formed remainder; nothing else may succeed.
                assert!(reply.status.is_success(), "{what}: {}", reply.status);
                assert_eq!(method, "GET", "{what} succeeded");
                assert!(
                    !path.starts_with("/v1/threads/") || path.starts_with("/v1/threads/summary"),
                    "{what} succeeded"
                );
            }
            checked += 1;
        }
    }
    assert_eq!(checked, ROUTES.len() * 40);
}
