//! `codewhale diagnostics config|export` (the reports themselves are
//! `crate::diagnostics`). Neither creates the home or the store.

#![allow(clippy::print_stdout)] // stdout is this command's output

use crate::{cli::DiagnosticsCommand, diagnostics, error::RunError, home};

pub async fn run(command: DiagnosticsCommand) -> Result<(), RunError> {
    let home = home::path()?;
    match command {
        DiagnosticsCommand::Config { json } => {
            let report = diagnostics::config_report::report(&home);
            if json {
                let text = serde_json::to_string_pretty(&report)
                    .map_err(|e| RunError::Config(format!("cannot encode the report: {e}")))?;
                println!("{text}");
            } else {
                print!("{}", readable(&report));
            }
        }
        DiagnosticsCommand::Export => {
            let path = diagnostics::export::export(&home)
                .await
                .map_err(RunError::Config)?;
            println!("{}", path.display());
        }
    }
    Ok(())
}

fn readable(report: &protocol::ConfigDiagnostics) -> String {
    let mut out = String::from("Layers (lowest first):\n");
    for layer in &report.layers {
        let state = if layer.present { "present" } else { "absent" };
        out.push_str(&format!(
            "  {:<12} {} ({state}, {} keys)\n",
            layer.name, layer.source, layer.keys
        ));
    }
    out.push_str("Keys:\n");
    if report.keys.is_empty() {
        out.push_str("  none set: built-in defaults throughout\n");
    }
    for key in &report.keys {
        out.push_str(&format!("  {:<48} {}\n", key.key, key.set_by));
    }
    if report.problems.is_empty() {
        out.push_str("No problems.\n");
    } else {
        out.push_str("Problems:\n");
        for problem in &report.problems {
            let line = problem
                .line
                .map(|l| format!(" line {l}"))
                .unwrap_or_default();
            out.push_str(&format!("  {}{line}: {}\n", problem.layer, problem.message));
        }
    }
    out
}
