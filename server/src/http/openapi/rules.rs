//! What the runtime checks beyond the wire types, stated in the document:
//! id formats, ranges, enums, non-blank and bounded strings, and the rules
//! between fields. Each rule is built from the constant or the function the
//! runtime enforces it with, so the document promises exactly what the
//! server accepts: a request the document admits is never a 400, and one it
//! refuses never succeeds (the contract test, `scripts/test-contract`,
//! holds the two together with schemathesis). What no schema can say — a
//! workspace that does not exist, a provider that is not configured, tool
//! names that clash — is a 409, documented on the routes.

use crate::{
    http::routes::threads::MAX_LAST_EVENT_ID_DIGITS,
    runtime::{
        client_tools::{
            MAX_NAMESPACED_NAME_CHARS, MAX_NAMESPACE_CHARS, MAX_NAME_CHARS as MAX_TOOL_NAME_CHARS,
            MAX_TOOLS,
        },
        devices::{MAX_NAME_CHARS as MAX_DEVICE_NAME_CHARS, MAX_PAIRING_TTL},
        ids,
        snapshots::{MAX_LIST_LIMIT as MAX_SNAPSHOTS, SNAPSHOT_PREFIX},
        stream::MAX_REPLAY_LIMIT,
        threads::{MAX_LIST_LIMIT, MAX_TITLE_CHARS},
        usage::GROUPS,
    },
    workspace::{browse, diff, file},
};
use protocol::Mode;
use serde_json::{json, Map, Value};

/// Unicode's White_Space characters: what `str::trim` removes.
pub const WHITE_SPACE: &str =
    r"\t\n\u000B\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000";

/// Characters a device name may not hold (`devices::forbidden_in_name`).
pub const NOT_IN_DEVICE_NAMES: &str =
    r"\u0000-\u001F\u007F-\u009F\u200B-\u200F\u202A-\u202E\u2060-\u206F\uFEFF";

/// A string with something besides white space: what the runtime means by
/// "must not be empty" (it trims first). Spelled with explicit characters,
/// since `\S` differs between regex dialects.
pub(super) fn not_blank() -> String {
    format!("[^{WHITE_SPACE}]")
}

pub fn add(document: &mut Value) {
    path_parameters(document);
    query_parameters(document);
    request_bodies(&mut document["components"]["schemas"]);
    workspace_bounds(&mut document["components"]["schemas"]);
    super::automation_rules::add(document);
    super::fleet_rules::add(document);
    super::skills_rules::add(document);
    super::mcp_rules::add(document);
    super::sessions_rules::add(document);
}

/// The prefix of the ids a path parameter takes, if the runtime makes them.
fn id_prefix(path: &str, parameter: &str) -> Option<&'static str> {
    match parameter {
        "id" if path.starts_with("/v1/threads/") => Some(ids::THREAD),
        "id" if path.starts_with("/v1/devices/") => Some(crate::runtime::devices::DEVICE),
        "id" if path.starts_with("/v1/tasks/") => Some(ids::TASK),
        "id" if path.starts_with("/v1/automations/") => Some(ids::AUTOMATION),
        "thread_id" => Some(ids::THREAD),
        "run_id" if path.starts_with("/v1/fleet/") => Some(ids::FLEET_RUN),
        "worker_id" if path.starts_with("/v1/fleet/") => Some(ids::FLEET_WORKER),
        "turn_id" => Some(ids::TURN),
        "approval_id" => Some(ids::APPROVAL),
        "input_id" => Some(ids::USER_INPUT),
        "call_id" => Some(ids::TOOL_CALL),
        _ => None,
    }
}

/// Every id in a path is one the runtime made: its prefix and hex. A
/// malformed thread, turn or device id is a 400; any other id the server
/// does not know is a 404.
fn path_parameters(document: &mut Value) {
    let Some(paths) = document["paths"].as_object_mut() else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        for operation in item
            .as_object_mut()
            .into_iter()
            .flat_map(|o| o.values_mut())
        {
            for parameter in parameters(operation) {
                if parameter["in"] != "path" {
                    continue;
                }
                let name = parameter["name"].as_str().unwrap_or_default();
                if let Some(prefix) = id_prefix(path, name) {
                    parameter["schema"]["pattern"] = json!(ids::pattern(prefix));
                }
            }
        }
    }
}

fn query_parameters(document: &mut Value) {
    let events = "/v1/threads/{id}/events";
    let rules = [
        (
            "/v1/threads",
            "limit",
            json!({ "minimum": 1, "maximum": MAX_LIST_LIMIT }),
        ),
        (
            "/v1/threads/summary",
            "limit",
            json!({ "minimum": 1, "maximum": MAX_LIST_LIMIT }),
        ),
        (events, "since_seq", json!({ "minimum": 0 })),
        (
            events,
            "replay_limit",
            json!({ "minimum": 0, "maximum": MAX_REPLAY_LIMIT }),
        ),
        (
            events,
            "Last-Event-ID",
            json!({
                "type": "string",
                "pattern": format!("^[0-9]{{1,{MAX_LAST_EVENT_ID_DIGITS}}}$"),
            }),
        ),
        (
            "/v1/snapshots",
            "limit",
            json!({ "minimum": 1, "maximum": MAX_SNAPSHOTS }),
        ),
        (
            "/v1/threads/{id}/snapshots",
            "limit",
            json!({ "minimum": 1, "maximum": MAX_SNAPSHOTS }),
        ),
        (
            "/v1/tasks",
            "limit",
            json!({ "minimum": 1, "maximum": crate::runtime::tasks::MAX_LIST }),
        ),
        ("/v1/usage", "since", json!({ "format": "date-time" })),
        ("/v1/usage", "until", json!({ "format": "date-time" })),
        ("/v1/usage", "group_by", json!({ "enum": GROUPS })),
    ];
    // A fleet run's stream has the thread streams' cursor rules.
    let fleet: Vec<_> = rules
        .iter()
        .filter(|(path, ..)| *path == events)
        .map(|(_, name, rule)| ("/v1/fleet/runs/{run_id}/events", *name, rule.clone()))
        .collect();
    for (path, name, rule) in rules.into_iter().chain(fleet) {
        if let Some(schema) = schema_of(document, path, "get", name) {
            merge(schema, &rule);
        }
    }
}

fn request_bodies(schemas: &mut Value) {
    let modes: Vec<Value> = Mode::ALL
        .iter()
        .map(|m| json!(m.as_str()))
        .chain([Value::Null])
        .collect();
    for name in ["CreateThread", "PatchThread", "StartTurn"] {
        let properties = &mut schemas[name]["properties"];
        properties["mode"]["enum"] = json!(modes);
        properties["model"]["pattern"] = json!(not_blank());
        if properties.get("model_provider").is_some() {
            properties["model_provider"]["pattern"] = json!(not_blank());
        }
        if properties.get("title").is_some() {
            properties["title"]["maxLength"] = json!(MAX_TITLE_CHARS);
        }
        if properties.get("dynamic_tools").is_some() {
            properties["dynamic_tools"]["maxItems"] = json!(MAX_TOOLS);
        }
    }
    schemas["RestoreSnapshot"]["properties"]["snapshot_id"]["pattern"] =
        json!(ids::pattern(SNAPSHOT_PREFIX));
    schemas["ForkAtUserMessage"]["properties"]["item_id"]["pattern"] =
        json!(ids::pattern(ids::ITEM));
    let finding_ids = &mut schemas["ApplyReview"]["properties"]["finding_ids"];
    finding_ids["minItems"] = json!(1);
    finding_ids["maxItems"] = json!(protocol::MAX_FINDINGS_PER_APPLY);
    finding_ids["uniqueItems"] = json!(true);
    finding_ids["items"]["pattern"] = json!(ids::pattern(ids::ITEM));
    schemas["RevertReview"]["properties"]["action_id"]["pattern"] = json!(ids::pattern(ids::ITEM));
    for field in ["model", "model_provider"] {
        schemas["RetryTurn"]["properties"][field]["pattern"] = json!(not_blank());
    }
    for name in ["StartTurn", "SteerTurn", "EditLastTurn", "CreateTask"] {
        schemas[name]["properties"]["prompt"]["pattern"] = json!(not_blank());
    }
    let task = &mut schemas["CreateTask"]["properties"];
    for field in ["model", "model_provider"] {
        task[field]["pattern"] = json!(not_blank());
    }
    task["thread_id"]["pattern"] = json!(ids::pattern(ids::THREAD));
    // A given thread keeps its workspace (`Runtime::create_task`).
    schemas["CreateTask"]["if"] = json!({
        "required": ["thread_id"],
        "properties": { "thread_id": { "type": "string" } },
    });
    schemas["CreateTask"]["then"] = json!({
        "properties": { "workspace": { "type": "null" } },
    });
    // `PatchThread::is_empty`: a PATCH changes at least one field (a null
    // one changes nothing).
    let fields: Vec<String> = schemas["PatchThread"]["properties"]
        .as_object()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    schemas["PatchThread"]["anyOf"] = fields
        .iter()
        .map(|f| json!({ "required": [f], "properties": { f: { "not": { "type": "null" } } } }))
        .collect();
    dynamic_tool(&mut schemas["DynamicToolSpec"]);
    // `ToolContent` is `deny_unknown_fields`, in each of its shapes.
    for variant in schemas["ToolContent"]["oneOf"]
        .as_array_mut()
        .into_iter()
        .flatten()
    {
        variant["additionalProperties"] = json!(false);
    }
    let device_name = json!({
        "maxLength": MAX_DEVICE_NAME_CHARS,
        "allOf": [
            { "pattern": format!("^[^{NOT_IN_DEVICE_NAMES}]*$") },
            { "pattern": not_blank() },
        ],
    });
    merge(
        &mut schemas["PatchDevice"]["properties"]["name"],
        &device_name,
    );
    merge(
        &mut schemas["CreatePairing"]["properties"]["label"],
        &device_name,
    );
    let ttl = &mut schemas["CreatePairing"]["properties"]["ttl_seconds"];
    ttl["minimum"] = json!(1);
    ttl["maximum"] = json!(MAX_PAIRING_TTL.as_secs());
}

/// The bounds the workspace views cut their answers to (a cut sets
/// `truncated`): `workspace::browse`, `workspace::file`, `workspace::diff`.
fn workspace_bounds(schemas: &mut Value) {
    schemas["WorkspaceListing"]["properties"]["entries"]["maxItems"] = json!(browse::MAX_ENTRIES);
    schemas["WorkspaceDiff"]["properties"]["files"]["maxItems"] = json!(diff::MAX_FILES);
    schemas["DiffFile"]["properties"]["hunks"]["maxItems"] = json!(diff::MAX_HUNKS_PER_FILE);
    let limits = &mut schemas["DiffLimits"]["properties"];
    for (name, value) in [
        ("max_files", diff::MAX_FILES as u64),
        ("max_hunks_per_file", diff::MAX_HUNKS_PER_FILE as u64),
        ("max_lines_per_file", diff::MAX_LINES_PER_FILE as u64),
        ("max_total_bytes", diff::MAX_TOTAL_BYTES),
        ("max_file_bytes", file::MAX_FILE_BYTES),
    ] {
        limits[name]["const"] = json!(value);
    }
}

/// `client_tools::validate`: names and namespaces, the combined length,
/// and an object input schema.
fn dynamic_tool(spec: &mut Value) {
    let name = |max: usize| format!("^[A-Za-z0-9_-]{{1,{max}}}$");
    let properties = &mut spec["properties"];
    properties["name"]["pattern"] = json!(name(MAX_TOOL_NAME_CHARS));
    properties["namespace"]["pattern"] = json!(name(MAX_NAMESPACE_CHARS));
    properties["input_schema"] = json!({
        "description": "A JSON Schema of an object: `{\"type\": \"object\", …}` (the default)",
        "type": "object",
        "required": ["type"],
        "properties": { "type": { "const": "object" } },
    });
    spec["if"] = json!({
        "required": ["namespace"],
        "properties": { "namespace": { "type": "string" } },
    });
    spec["then"] = json!({
        "properties": { "name": { "maxLength": MAX_NAMESPACED_NAME_CHARS } },
    });
}

/// An operation's parameters (`get_mut`: indexing would add a null).
fn parameters(operation: &mut Value) -> impl Iterator<Item = &mut Value> {
    operation
        .get_mut("parameters")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flat_map(|p| p.iter_mut())
}

/// The schema of an operation's parameter (the tests below check that
/// every rule found its place).
pub(super) fn schema_of<'a>(
    document: &'a mut Value,
    path: &str,
    method: &str,
    name: &str,
) -> Option<&'a mut Value> {
    document
        .get_mut("paths")?
        .get_mut(path)?
        .get_mut(method)?
        .get_mut("parameters")?
        .as_array_mut()?
        .iter_mut()
        .find(|p| p["name"] == name)?
        .get_mut("schema")
}

/// Adds `from`'s keywords to the schema `into`.
pub(super) fn merge(into: &mut Value, from: &Value) {
    if !into.is_object() {
        *into = Value::Object(Map::new());
    }
    if let (Some(into), Some(from)) = (into.as_object_mut(), from.as_object()) {
        into.extend(from.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::devices::forbidden_in_name;

    /// The characters of a `[...]` class body made of `\uXXXX` escapes,
    /// ranges and the few plain escapes used above.
    fn class(body: &str) -> Vec<(char, char)> {
        let mut chars = Vec::new();
        let mut rest = body;
        while !rest.is_empty() {
            let (c, after) = if let Some(hex) = rest.strip_prefix(r"\u") {
                let code = u32::from_str_radix(&hex[..4], 16).unwrap();
                (char::from_u32(code).unwrap(), &hex[4..])
            } else if let Some(after) = rest.strip_prefix('\\') {
                let c = match after.chars().next().unwrap() {
                    't' => '\t',
                    'n' => '\n',
                    'f' => '\u{c}',
                    'r' => '\r',
                    other => panic!("unexpected escape {other}"),
                };
                (c, &after[1..])
            } else {
                let c = rest.chars().next().unwrap();
                (c, &rest[c.len_utf8()..])
            };
            chars.push(c);
            rest = after;
        }
        let mut ranges = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            if chars.get(i + 1) == Some(&'-') && i + 2 < chars.len() {
                ranges.push((chars[i], chars[i + 2]));
                i += 3;
            } else {
                ranges.push((chars[i], chars[i]));
                i += 1;
            }
        }
        ranges
    }

    fn every_char() -> impl Iterator<Item = char> {
        (0..=0x10FFFF).filter_map(char::from_u32)
    }

    #[test]
    fn white_space_is_what_trim_removes() {
        let ranges = class(WHITE_SPACE);
        for c in every_char() {
            let listed = ranges.iter().any(|(a, b)| (*a..=*b).contains(&c));
            assert_eq!(listed, c.is_whitespace(), "U+{:04X}", c as u32);
        }
    }

    #[test]
    fn the_device_name_class_is_what_the_runtime_refuses() {
        let ranges = class(NOT_IN_DEVICE_NAMES);
        for c in every_char() {
            let listed = ranges.iter().any(|(a, b)| (*a..=*b).contains(&c));
            assert_eq!(listed, forbidden_in_name(c), "U+{:04X}", c as u32);
        }
    }

    #[test]
    fn every_rule_found_its_place() {
        let document = crate::http::openapi::document();
        let parameter = |path: &str, name: &str| {
            document["paths"][path]["get"]["parameters"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["name"] == name)
                .unwrap_or_else(|| panic!("{path} {name}"))["schema"]
                .clone()
        };
        assert_eq!(parameter("/v1/threads", "limit")["maximum"], MAX_LIST_LIMIT);
        assert_eq!(parameter("/v1/threads/summary", "limit")["minimum"], 1);
        let events = "/v1/threads/{id}/events";
        assert_eq!(parameter(events, "since_seq")["minimum"], 0);
        assert_eq!(
            parameter(events, "replay_limit")["maximum"],
            MAX_REPLAY_LIMIT
        );
        assert!(parameter(events, "Last-Event-ID")["pattern"].is_string());
        assert_eq!(
            parameter(events, "id")["pattern"],
            ids::pattern(ids::THREAD)
        );
        assert_eq!(parameter("/v1/usage", "since")["format"], "date-time");
        assert_eq!(parameter("/v1/usage", "group_by")["enum"], json!(GROUPS));
        // Every path parameter is an id of a known kind.
        for (path, item) in document["paths"].as_object().unwrap() {
            for operation in item.as_object().unwrap().values() {
                for p in operation["parameters"].as_array().into_iter().flatten() {
                    if p["in"] == "path" {
                        assert!(p["schema"]["pattern"].is_string(), "{path} {}", p["name"]);
                    }
                }
            }
        }
        let schemas = &document["components"]["schemas"];
        assert_eq!(
            schemas["PatchThread"]["anyOf"].as_array().unwrap().len(),
            schemas["PatchThread"]["properties"]
                .as_object()
                .unwrap()
                .len()
        );
        assert_eq!(
            schemas["StartTurn"]["properties"]["mode"]["enum"][0],
            "agent"
        );
        assert!(schemas["DynamicToolSpec"]["then"].is_object());
        // Nothing was added where nothing was: no operation gained a
        // `parameters: null` (schemathesis refused the document for it).
        for (path, item) in document["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                assert!(
                    operation.get("parameters").is_none_or(Value::is_array),
                    "{method} {path}"
                );
            }
        }
        assert_eq!(
            schemas["CreatePairing"]["properties"]["label"]["maxLength"],
            MAX_DEVICE_NAME_CHARS
        );
        assert_eq!(
            schemas["WorkspaceDiff"]["properties"]["files"]["maxItems"],
            diff::MAX_FILES
        );
        assert_eq!(
            schemas["DiffLimits"]["properties"]["max_file_bytes"]["const"],
            file::MAX_FILE_BYTES
        );
        assert_eq!(
            schemas["WorkspaceListing"]["properties"]["entries"]["maxItems"],
            browse::MAX_ENTRIES
        );
    }

    #[test]
    fn every_id_pattern_is_what_ids_parse_accepts() {
        let pattern = ids::pattern(ids::THREAD);
        assert_eq!(pattern, "^thr_[0-9a-f]{1,64}$");
        for (id, ok) in [
            ("thr_0", true),
            (&*format!("thr_{}", "a".repeat(64)), true),
            (&*format!("thr_{}", "a".repeat(65)), false),
            ("thr_", false),
            ("thr_A", false),
            ("turn_0", false),
        ] {
            assert_eq!(ids::parse(ids::THREAD, id, "thread").is_ok(), ok, "{id}");
        }
    }
}
