//! No secret of the server's environment reaches a process it starts: a
//! command the model runs (exec_shell) or the browser opener. Its own test
//! binary, because it sets variables in this process's environment.

mod common;

use common::agent::{setup_with_provider, tool_call};
use mock_provider::Reply;
use serde_json::json;
use std::{path::PathBuf, sync::OnceLock, time::Duration};

const SECRETS: &[(&str, &str)] = &[
    ("CODEWHALE_RUNTIME_TOKEN", "cwrt_leak_runtime_token_0001"),
    ("DEEPSEEK_RUNTIME_TOKEN", "leak-deepseek-runtime-0002"),
    ("CODEWHALE_HOME_FOR_TEST", "leak-home-0003"),
    ("OPENAI_API_KEY", "sk-leak-openai-0004"),
    ("anthropic_api_key", "sk-leak-anthropic-0005"),
    ("GITHUB_TOKEN", "ghp_leak_0006"),
    ("AWS_ACCESS_KEY_ID", "AKIALEAK0007"),
    ("AWS_SECRET_ACCESS_KEY", "leak-aws-secret-0008"),
    ("SERVICE_PASSWORD", "leak-password-0009"),
    ("SSH_AUTH_SOCK", "/tmp/leak-agent-socket-0010"),
    // Named by the provider config below, not by any convention.
    ("ODDLY_NAMED_VAR", "leak-configured-key-0011"),
];

const KEY_CONFIG: &str = "api_key_env = \"ODDLY_NAMED_VAR\"";

const VISIBLE: (&str, &str) = ("CW_CHILD_ENV_VISIBLE", "ordinary-value-42");

/// Sets the variables once, before any test starts a process; returns a
/// directory, first on PATH, holding a fake `xdg-open` that writes its
/// environment to `opened.env` there.
fn init() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        let opener = dir.join("xdg-open");
        std::fs::write(
            &opener,
            format!(
                "#!/bin/sh\nenv > '{0}/env.tmp'\necho \"$1\" >> '{0}/env.tmp'\nmv '{0}/env.tmp' '{0}/opened.env'\n",
                dir.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = format!("{}:{}", dir.display(), std::env::var("PATH").unwrap());
        std::env::set_var("PATH", path);
        for (name, value) in SECRETS.iter().chain([&VISIBLE]) {
            std::env::set_var(name, value);
        }
        // As at startup: the agent, built from config, learns which
        // variables hold provider keys before any child starts.
        let config: codewhale::config::Config =
            toml::from_str(&format!("[providers.mock]\n{KEY_CONFIG}\n")).unwrap();
        codewhale::agent::Agent::from_config(&config);
        dir
    })
}

fn assert_scrubbed(output: &str) {
    for (name, value) in SECRETS {
        assert!(!output.contains(value), "{name} leaked:\n{output}");
    }
    let (name, value) = VISIBLE;
    assert!(output.contains(&format!("{name}={value}")), "{output}");
    assert!(output.contains("PATH="), "{output}");
}

#[tokio::test]
async fn exec_shell_gets_no_secrets() {
    init();
    let dir = tempfile::tempdir().unwrap();
    let s = setup_with_provider(
        KEY_CONFIG,
        json!({ "workspace": dir.path(), "auto_approve": true }),
    )
    .await;
    s.mock
        .push(tool_call("exec_shell", json!({"command": "env"})));
    s.mock.push(Reply::text(&["ran"]));
    let events = s.run("print the environment").await;
    let item = events.last_item("command_execution");
    assert_eq!(item["status"], "completed");
    assert_scrubbed(item["detail"].as_str().unwrap());
}

#[tokio::test]
async fn the_browser_opener_gets_no_secrets() {
    let dir = init();
    let url = "http://127.0.0.1:1/launch#capability";
    codewhale::child::open::browser(url.to_string());
    let written = dir.join("opened.env");
    for _ in 0..250 {
        if written.exists() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let output = std::fs::read_to_string(&written).expect("the opener ran");
    assert!(output.ends_with(&format!("{url}\n")), "{output}");
    assert_scrubbed(&output);
}
