//! `codewhale doctor`: the real binary on temporary homes. Its JSON is
//! checked against docs/doctor.schema.json here with a small validator of
//! the keywords that schema uses (the full JSON Schema validation is ajv's,
//! in interop/tests/doctor.test.mjs).

use crate::common;
use mock_provider::Mock;
use serde_json::Value;
use std::path::Path;

const ENV_KEY: &str = "sk-planted-env-7f3a9c1e5b";
const CONFIG_KEY: &str = "sk-planted-config-2d8e4b6a0c";

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// `codewhale doctor ARGS` with `home` as CODEWHALE_HOME and HOME, none of
/// the provider variables of the environment but `env`.
fn doctor(home: &Path, workspace: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut command = common::codewhale_in(home);
    command
        .arg("doctor")
        .args(args)
        .arg("--workspace")
        .arg(workspace)
        .env("HOME", workspace)
        .env("RUST_LOG", "debug");
    for name in [
        "DEEPSEEK_API_KEY",
        "OPENAI_API_KEY",
        "DEEPSEEK_BASE_URL",
        "OPENAI_BASE_URL",
    ] {
        command.env_remove(name);
    }
    for (name, value) in env {
        command.env(name, value);
    }
    let out = command.output().expect("codewhale runs");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn json(run: &Run) -> Value {
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

fn schema() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/doctor.schema.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// type, enum, const, required, properties, additionalProperties: false,
/// items, minimum — the keywords docs/doctor.schema.json uses.
fn validate(schema: &Value, value: &Value, at: &str, errors: &mut Vec<String>) {
    if let Some(types) = schema.get("type") {
        let types: Vec<&str> = match types {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let fits = |t: &&str| match *t {
            "string" => value.is_string(),
            "integer" => value.is_i64() || value.is_u64(),
            "boolean" => value.is_boolean(),
            "object" => value.is_object(),
            "array" => value.is_array(),
            "null" => value.is_null(),
            _ => false,
        };
        if !types.iter().any(fits) {
            errors.push(format!("{at}: {value} is not {types:?}"));
            return;
        }
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        if !options.contains(value) {
            errors.push(format!("{at}: {value} not in {options:?}"));
        }
    }
    if let Some(constant) = schema.get("const") {
        if constant != value {
            errors.push(format!("{at}: {value} is not {constant}"));
        }
    }
    if let (Some(min), Some(n)) = (
        schema.get("minimum").and_then(Value::as_f64),
        value.as_f64(),
    ) {
        if n < min {
            errors.push(format!("{at}: {n} < {min}"));
        }
    }
    if let Some(object) = value.as_object() {
        let properties = schema.get("properties").and_then(Value::as_object);
        for key in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if !object.contains_key(key.as_str().unwrap_or_default()) {
                errors.push(format!("{at}: missing {key}"));
            }
        }
        for (key, child) in object {
            match properties.and_then(|p| p.get(key)) {
                Some(sub) => validate(sub, child, &format!("{at}.{key}"), errors),
                None if schema.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    errors.push(format!("{at}: unexpected {key}"))
                }
                None => {}
            }
        }
    }
    if let (Some(items), Some(array)) = (schema.get("items"), value.as_array()) {
        for (i, item) in array.iter().enumerate() {
            validate(items, item, &format!("{at}[{i}]"), errors);
        }
    }
}

fn assert_valid(report: &Value) {
    let mut errors = Vec::new();
    validate(&schema(), report, "$", &mut errors);
    assert!(errors.is_empty(), "{errors:#?}\n{report:#}");
}

fn mock_config(home: &Path, base_url: &str, key_env: Option<&str>) {
    let key = key_env
        .map(|v| format!("api_key_env = \"{v}\"\n"))
        .unwrap_or_default();
    std::fs::write(
        home.join("config.toml"),
        format!("default_provider = \"mock\"\n[providers.mock]\nbase_url = \"{base_url}\"\nmodels = [\"mock-1\"]\n{key}"),
    )
    .unwrap();
}

#[test]
fn a_fresh_home_is_reported_valid_and_left_uncreated() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home-not-yet");
    for args in [&["--json", "--offline"][..], &["--offline"][..]] {
        let run = doctor(&home, dir.path(), args, &[]);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        assert!(!home.exists(), "doctor created {}", home.display());
    }
    let report = json(&doctor(&home, dir.path(), &["--json", "--offline"], &[]));
    assert_valid(&report);
    assert_eq!(report["config_present"], false);
    assert_eq!(report["config_error"], Value::Null);
    assert_eq!(report["api_key"]["source"], "missing");
    assert_eq!(report["api_key"]["variable"], "DEEPSEEK_API_KEY");
    assert_eq!(report["storage"]["store"]["present"], false);
    assert_eq!(report["storage"]["store"]["schema_version"], Value::Null);
    assert_eq!(report["storage"]["home"]["present"], false);
    assert_eq!(report["mcp"]["live_health_checked"], false);
    assert_eq!(report["sandbox"]["available"], false);
    // An existing but empty home stays empty.
    let empty = dir.path().join("empty-home");
    std::fs::create_dir(&empty).unwrap();
    let run = doctor(&empty, dir.path(), &["--offline"], &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(std::fs::read_dir(&empty).unwrap().count(), 0);
}

#[test]
fn planted_keys_never_appear_in_any_output() {
    let dir = tempfile::tempdir().unwrap();
    let env = [("DEEPSEEK_API_KEY", ENV_KEY), ("MOCK_KEY", CONFIG_KEY)];
    // The key named by config.toml: source "config".
    mock_config(dir.path(), "http://127.0.0.1:9", Some("MOCK_KEY"));
    let runs = [
        doctor(dir.path(), dir.path(), &["--json", "--offline"], &env),
        doctor(dir.path(), dir.path(), &["--offline"], &env),
    ];
    let report = json(&runs[0]);
    assert_valid(&report);
    assert_eq!(report["api_key"]["source"], "config");
    assert_eq!(report["api_key"]["variable"], "MOCK_KEY");
    // No config: the built-in DEEPSEEK_API_KEY, source "env".
    let bare = tempfile::tempdir().unwrap();
    let env_runs = [
        doctor(bare.path(), bare.path(), &["--json", "--offline"], &env),
        doctor(bare.path(), bare.path(), &[], &env),
    ];
    assert_eq!(json(&env_runs[0])["api_key"]["source"], "env");
    // A key pasted into config.toml itself (not a field it has): refused,
    // and the message does not quote it.
    let pasted = tempfile::tempdir().unwrap();
    std::fs::write(
        pasted.path().join("config.toml"),
        format!("[providers.mock]\nbase_url = \"http://127.0.0.1:9\"\napi_key = \"{CONFIG_KEY}\"\nidle_timeout_secs = \"{ENV_KEY}\"\n"),
    )
    .unwrap();
    let pasted_runs = [
        doctor(pasted.path(), pasted.path(), &["--json", "--offline"], &env),
        doctor(pasted.path(), pasted.path(), &["--offline"], &env),
    ];
    let pasted_report = json(&pasted_runs[0]);
    assert_valid(&pasted_report);
    let error = pasted_report["config_error"].as_str().unwrap();
    assert!(error.contains("line 3"), "{error}");
    for run in runs.iter().chain(&env_runs).chain(&pasted_runs) {
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        for key in [ENV_KEY, CONFIG_KEY, "sk-planted"] {
            assert!(
                !run.stdout.contains(key),
                "stdout shows a key:\n{}",
                run.stdout
            );
            assert!(
                !run.stderr.contains(key),
                "stderr shows a key:\n{}",
                run.stderr
            );
        }
    }
}

#[tokio::test]
async fn reachability_is_ok_for_a_live_provider_unreachable_for_a_dead_port_and_skipped_offline() {
    let mock = Mock::default();
    let url = mock.serve(0).await.unwrap();
    let dead = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", listener.local_addr().unwrap())
    };
    let live_home = tempfile::tempdir().unwrap();
    mock_config(live_home.path(), &url, None);
    let dead_home = tempfile::tempdir().unwrap();
    mock_config(dead_home.path(), &dead, None);
    let (live, dead_run, offline) = tokio::task::spawn_blocking({
        let (l, d) = (
            live_home.path().to_path_buf(),
            dead_home.path().to_path_buf(),
        );
        move || {
            (
                doctor(&l, &l, &["--json"], &[]),
                doctor(&d, &d, &["--json"], &[]),
                doctor(&d, &d, &["--json", "--offline"], &[]),
            )
        }
    })
    .await
    .unwrap();
    let live = json(&live);
    assert_valid(&live);
    let reach = &live["provider"]["reachability"];
    assert_eq!(reach["status"], "ok", "{reach}");
    assert_eq!(reach["url"], format!("{url}/models"));
    assert_eq!(live["provider"]["id"], "mock");
    assert_eq!(live["base_url"], url);
    assert_eq!(live["default_text_model"], "mock-1");
    assert_eq!(live["api_key"]["source"], "not_required");
    let dead_report = json(&dead_run);
    assert_valid(&dead_report);
    assert_eq!(
        dead_report["provider"]["reachability"]["status"],
        "unreachable"
    );
    let offline = json(&offline);
    assert_eq!(offline["provider"]["reachability"]["status"], "skipped");
    assert_eq!(
        offline["provider"]["reachability"]["http_status"],
        Value::Null
    );
    // The readable report says the same.
    let text = tokio::task::spawn_blocking({
        let l = live_home.path().to_path_buf();
        move || doctor(&l, &l, &[], &[])
    })
    .await
    .unwrap();
    assert!(text.stdout.contains("reachability"), "{}", text.stdout);
    assert!(text.stdout.contains("ok: answered HTTP"), "{}", text.stdout);
    assert!(
        !text.stdout.contains('\x1b'),
        "colour on a pipe:\n{}",
        text.stdout
    );
}

#[tokio::test]
async fn the_store_schema_version_is_read_without_touching_the_store() {
    let home = tempfile::tempdir().unwrap();
    let store = codewhale::store::Store::open(home.path()).await.unwrap();
    store.close().await;
    let db = home.path().join(codewhale::store::DATABASE_FILE);
    let before = std::fs::read(&db).unwrap();
    let listing = |dir: &Path| {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let files = listing(home.path());
    let run = tokio::task::spawn_blocking({
        let h = home.path().to_path_buf();
        move || doctor(&h, &h, &["--json", "--offline"], &[])
    })
    .await
    .unwrap();
    let report = json(&run);
    assert_valid(&report);
    let facts = &report["storage"]["store"];
    assert_eq!(facts["present"], true);
    assert_eq!(facts["error"], Value::Null, "{facts}");
    assert!(facts["schema_version"].as_i64().is_some(), "{facts}");
    assert_eq!(facts["schema_version"], facts["expected_schema_version"]);
    assert_eq!(std::fs::read(&db).unwrap(), before, "the store changed");
    assert_eq!(listing(home.path()), files, "doctor left files behind");
}
