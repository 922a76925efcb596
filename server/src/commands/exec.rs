//! `codewhale exec`: one turn, headless, on the same store and engine as
//! the server. Text mode streams the answer to stdout and activity to
//! stderr; stream-json prints every event envelope as one line.

#![allow(clippy::print_stdout)] // stdout is this command's output

use super::{current_dir, runtime_options};
use crate::{
    cli::{ExecArgs, OutputFormat},
    config::Config,
    error::RunError,
    home,
    runtime::{error::RuntimeError, stream::Cursor, Runtime},
};
use protocol::{CreateThread, EventName, StartTurn};
use serde_json::Value;
use std::{io::Write, process::ExitCode, time::Duration};

pub async fn run(args: ExecArgs) -> Result<ExitCode, RunError> {
    let home = home::resolve()?;
    let config = Config::load(&home)?;
    let workspace = match args.workspace {
        Some(dir) => dir,
        None => current_dir()?,
    };
    // Headless: nobody can answer an approval, so without --auto-approve
    // every write and command is denied at once.
    let options = runtime_options(home, &config, workspace.clone(), Duration::ZERO);
    let runtime = Runtime::open(options).await?;
    let request = CreateThread {
        model: args.model.clone(),
        model_provider: args.provider.clone(),
        workspace: Some(workspace.display().to_string()),
        auto_approve: Some(args.auto_approve),
        ..CreateThread::default()
    };
    let thread = runtime.create_thread(request).await.map_err(config_error)?;
    let cursor = Cursor {
        since_seq: 0,
        replay_limit: None,
    };
    let mut frames = runtime
        .subscribe(&thread.id, cursor)
        .await
        .map_err(config_error)?;
    let prompt = args.prompt.join(" ");
    let started = runtime
        .start_turn(
            &thread.id,
            StartTurn {
                prompt,
                ..StartTurn::default()
            },
        )
        .await
        .map_err(config_error)?;
    let turn_id = started.turn.id.clone();
    let mut interrupted = false;
    let status = loop {
        let frame = tokio::select! {
            frame = frames.recv() => frame,
            _ = tokio::signal::ctrl_c(), if !interrupted => {
                interrupted = true;
                let _ = runtime.interrupt_turn(&thread.id, &turn_id).await;
                continue;
            }
        };
        let Some(frame) = frame else { break None };
        let envelope: Value = serde_json::from_str(&frame.data).unwrap_or(Value::Null);
        match args.output_format {
            OutputFormat::StreamJson => println!("{}", frame.data),
            OutputFormat::Text => show(&envelope),
        }
        if frame.event == EventName::TurnCompleted.as_str() {
            break envelope["payload"]["turn"]["status"]
                .as_str()
                .map(str::to_string);
        }
    };
    let _ = std::io::stdout().flush();
    runtime.close().await;
    Ok(match status.as_deref() {
        Some("completed") => ExitCode::SUCCESS,
        Some("interrupted") => ExitCode::from(130),
        _ => ExitCode::FAILURE,
    })
}

/// Text mode: the answer on stdout as it streams; everything else briefly
/// on stderr.
fn show(envelope: &Value) {
    let payload = &envelope["payload"];
    let Some(name) = envelope["event"].as_str().and_then(EventName::parse) else {
        return;
    };
    match name {
        EventName::ItemDelta if payload["kind"] == "agent_message" => {
            print!("{}", payload["delta"].as_str().unwrap_or_default());
            let _ = std::io::stdout().flush();
        }
        EventName::ItemCompleted | EventName::ItemFailed => {
            let item = &payload["item"];
            match item["kind"].as_str().unwrap_or_default() {
                "agent_message" => println!(),
                "tool_call" | "file_change" | "command_execution" => {
                    eprintln!(
                        "[{}] {} ({})",
                        item["kind"].as_str().unwrap_or(""),
                        item["summary"].as_str().unwrap_or(""),
                        item["status"].as_str().unwrap_or("")
                    );
                }
                "error" => eprintln!("error: {}", item["detail"].as_str().unwrap_or("")),
                _ => {}
            }
        }
        EventName::ApprovalDecided if payload["decision"] == "deny" => {
            eprintln!("(denied: pass --auto-approve to allow writes and commands)");
        }
        EventName::TurnCompleted => {
            let turn = &payload["turn"];
            if let Some(error) = turn["error"].as_str() {
                eprintln!("turn {}: {error}", turn["status"].as_str().unwrap_or(""));
            }
        }
        _ => {}
    }
}

fn config_error(error: RuntimeError) -> RunError {
    RunError::Config(error.to_string())
}
