//! Diagnostics safe to share: the configuration report (API and CLI) names
//! keys and layers and never a value; the support bundle (the real binary,
//! `codewhale diagnostics export`) is mode 0600 and holds none of the
//! secrets, prompts, commands, tool arguments, results or paths the test
//! planted.

use crate::common::{
    agent::{setup_in_workspace, tool_call},
    codewhale_in,
};
use mock_provider::Reply;
use serde_json::json;
use std::os::unix::fs::PermissionsExt;

const PLANTED: [&str; 9] = [
    "planted-url-secret",
    "planted-mcp-env-value",
    "planted-header-value",
    "planted-api-key-value",
    "PLANTED-PROMPT-TEXT",
    "PLANTED-COMMAND-TEXT",
    "PLANTED-TOOL-OUTPUT",
    "PLANTED-ANSWER-TEXT",
    "planted-workspace-dir",
];

#[tokio::test]
async fn the_config_report_and_the_bundle_hold_no_value_prompt_or_path() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("planted-workspace-dir");
    std::fs::create_dir(&workspace).unwrap();
    let workspace = workspace.canonicalize().unwrap();
    let s = setup_in_workspace(&workspace, json!({"auto_approve": true})).await;
    let home = s._h.home.path().to_path_buf();
    std::fs::write(
        home.join("config.toml"),
        "default_provider = \"mock\"\n\
         [providers.mock]\nbase_url = \"http://127.0.0.1:9/v1?key=planted-url-secret\"\napi_key_env = \"PLANTED_KEY_VARIABLE\"\n\
         [mcp.servers.tools]\ncommand = \"/nonexistent/server\"\nenv = { TOKEN = \"planted-mcp-env-value\" }\n\
         [mcp.servers.web]\nurl = \"https://mcp.example.com/mcp\"\nstartup_timeout_seconds = 2\nheaders = { Authorization = \"Bearer planted-header-value\" }\n",
    )
    .unwrap();

    // A turn whose prompt, command, output and answer are all planted.
    s.mock.push(tool_call(
        "exec_shell",
        json!({"command": "echo PLANTED-COMMAND-TEXT; echo PLANTED-TOOL-OUTPUT"}),
    ));
    s.mock.push(Reply::text(&["PLANTED-ANSWER-TEXT"]));
    let events = s.run("PLANTED-PROMPT-TEXT please").await;
    assert_eq!(events.completed_turn()["status"], "completed");
    s.api
        .post(
            &format!("/v1/threads/{}/persist-session", s.thread),
            json!({}),
        )
        .await;

    // The API's report: keys and layers, no values.
    let report = s.api.get("/v1/diagnostics/config").await;
    assert_eq!(report.status, 200, "{}", report.text());
    let report = report.json();
    let text = report.to_string();
    for secret in &PLANTED[..3] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
    let keys: Vec<&str> = report["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["key"].as_str().unwrap())
        .collect();
    assert!(keys.contains(&"providers.mock.base_url"), "{keys:?}");
    assert!(keys.contains(&"mcp.servers.web.headers.Authorization"));
    assert_eq!(report["layers"][1]["name"], "user");
    assert_eq!(report["problems"], json!([]));

    // The CLI's report, with the provider's key set in its environment.
    let output = codewhale_in(&home)
        .args(["diagnostics", "config"])
        .env("PLANTED_KEY_VARIABLE", "planted-api-key-value")
        .output()
        .unwrap();
    assert!(output.status.success());
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(printed.contains("env.PLANTED_KEY_VARIABLE"), "{printed}");
    assert!(!printed.contains("planted-api-key-value"));
    assert!(!printed.contains("planted-url-secret"));

    // The bundle.
    let output = codewhale_in(&home)
        .args(["diagnostics", "export"])
        .env("PLANTED_KEY_VARIABLE", "planted-api-key-value")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let path = std::path::PathBuf::from(String::from_utf8(output.stdout).unwrap().trim());
    assert!(path.starts_with(home.join("diagnostics")));
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let dir_mode = std::fs::metadata(home.join("diagnostics"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(dir_mode & 0o777, 0o700);
    let bundle = std::fs::read_to_string(&path).unwrap();
    for planted in PLANTED {
        assert!(!bundle.contains(planted), "{planted} is in the bundle");
    }
    for path in [&home, &workspace] {
        assert!(
            !bundle.contains(path.to_str().unwrap()),
            "a path is in the bundle"
        );
    }
    let bundle: serde_json::Value = serde_json::from_str(&bundle).unwrap();
    assert_eq!(bundle["format"], "codewhale-diagnostics/1");
    assert!(bundle["store"]["tables"]["threads"].as_i64().unwrap() >= 1);
    assert_eq!(bundle["store"]["turn_statuses"]["completed"], 1);
    assert_eq!(bundle["mcp"]["servers"], 2);
    assert_eq!(bundle["sessions"], 1);
    assert!(bundle["home"].as_str().unwrap().starts_with("sha256:"));
}

#[tokio::test]
async fn a_broken_config_is_reported_by_line_without_its_value() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        "default_provider = \"x\"\n[runtime_api]\ndevice_session_days = \"planted-broken-value\"\n",
    )
    .unwrap();
    let output = codewhale_in(home.path())
        .args(["diagnostics", "config", "--json"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["problems"][0]["line"], 3, "{report:#}");
    assert!(!report.to_string().contains("planted-broken-value"));
    // Nothing was created in the home.
    assert!(!home.path().join("codewhale.db").exists());
}
