//! The readable report: one line per fact, a mark in front (ok, warning,
//! not there). Colour only when asked (a terminal, NO_COLOR unset).

use super::{storage::Place, Report};
use std::fmt::Write;

#[derive(Clone, Copy)]
enum Mark {
    Ok,
    Warn,
    Off,
}

/// Colour for a terminal whose user did not set NO_COLOR.
pub fn use_colour(is_terminal: bool) -> bool {
    is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

pub fn text(report: &Report, colour: bool) -> String {
    let mut out = String::new();
    let mut line = |mark: Mark, label: &str, value: String| {
        let (symbol, code) = match mark {
            Mark::Ok => ("✓", "32"),
            Mark::Warn => ("!", "33"),
            Mark::Off => ("-", "2"),
        };
        let symbol = if colour {
            format!("\x1b[{code}m{symbol}\x1b[0m")
        } else {
            symbol.to_string()
        };
        let _ = writeln!(out, "{symbol} {label:<18} {value}");
    };
    line(Mark::Ok, "version", report.version.clone());
    let config_mark = match (&report.config_error, report.config_present) {
        (Some(_), _) => Mark::Warn,
        (None, true) => Mark::Ok,
        (None, false) => Mark::Off,
    };
    let config_value = match &report.config_error {
        Some(error) => format!("{} (not used: {error})", report.config_path),
        None if report.config_present => report.config_path.clone(),
        None => format!("{} (absent; defaults apply)", report.config_path),
    };
    line(config_mark, "config", config_value);
    line(Mark::Ok, "workspace", report.workspace.clone());
    let provider = &report.provider;
    line(
        Mark::Ok,
        "provider",
        format!("{} at {}", provider.id, report.base_url),
    );
    let model = report
        .default_text_model
        .clone()
        .unwrap_or_else(|| "none".into());
    line(
        if report.default_text_model.is_some() {
            Mark::Ok
        } else {
            Mark::Warn
        },
        "default model",
        model,
    );
    let key = &report.api_key;
    let variable = key.variable.clone().unwrap_or_default();
    let (mark, value) = match key.source {
        "env" => (Mark::Ok, format!("set in the environment ({variable})")),
        "config" => (Mark::Ok, format!("set ({variable}, named in config.toml)")),
        "not_required" => (Mark::Ok, "not required by this endpoint".into()),
        _ if variable.is_empty() => (Mark::Warn, "missing".into()),
        _ => (Mark::Warn, format!("missing: set {variable}")),
    };
    line(mark, "API key", value);
    let reach = &provider.reachability;
    let mark = match reach.status {
        "ok" => Mark::Ok,
        "skipped" => Mark::Off,
        _ => Mark::Warn,
    };
    let elapsed = reach
        .elapsed_ms
        .map(|ms| format!(" in {ms} ms"))
        .unwrap_or_default();
    line(
        mark,
        "reachability",
        format!("{}: {}{elapsed}", reach.status, reach.detail),
    );
    let memory = &report.memory;
    line(
        Mark::Off,
        "memory",
        format!(
            "off in this version ({} {})",
            memory.path,
            if memory.file_present {
                "exists"
            } else {
                "absent"
            }
        ),
    );
    let mcp = &report.mcp;
    let mcp_value = match (&mcp.error, mcp.present) {
        (Some(error), _) => format!("{}: {error}", mcp.config_path),
        (None, true) => format!(
            "{} server(s) configured, not started: {}",
            mcp.servers.len(),
            mcp.servers
                .iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        (None, false) => format!("no configuration ({})", mcp.config_path),
    };
    line(
        if mcp.error.is_some() {
            Mark::Warn
        } else {
            Mark::Off
        },
        "MCP servers",
        mcp_value,
    );
    let skills = &report.skills;
    for (label, place) in [
        ("skills (home)", &skills.global),
        ("skills .agents", &skills.agents),
        ("skills ~/.agents", &skills.agents_global),
        ("skills skills/", &skills.local),
        ("skills .opencode", &skills.opencode),
        ("skills .claude", &skills.claude),
        ("tools", &report.tools),
        ("plugins", &report.plugins),
    ] {
        line(presence(place), label, describe(place));
    }
    let sandbox = &report.sandbox;
    let value = match &sandbox.kind {
        Some(kind) if sandbox.available => kind.clone(),
        _ => format!("none ({})", sandbox.detail),
    };
    line(
        if sandbox.available {
            Mark::Ok
        } else {
            Mark::Warn
        },
        "sandbox",
        value,
    );
    let storage = &report.storage;
    line(presence(&storage.home), "home", describe(&storage.home));
    let store = &storage.store;
    let (mark, value) = match (&store.error, store.present, store.schema_version) {
        (Some(error), _, _) => (Mark::Warn, format!("{} ({error})", store.path)),
        (None, false, _) => (Mark::Off, format!("{} (not created yet)", store.path)),
        (None, true, version) => (
            Mark::Ok,
            format!(
                "{} ({}, schema {} of {})",
                store.path,
                bytes(store.bytes.unwrap_or(0)),
                version
                    .map(|v| v.to_string())
                    .unwrap_or_else(|| "none".into()),
                store.expected_schema_version
            ),
        ),
    };
    line(mark, "store", value);
    line(
        presence(&storage.snapshots),
        "snapshots",
        describe(&storage.snapshots),
    );
    line(presence(&storage.tls), "tls", describe(&storage.tls));
    out
}

fn presence(place: &Place) -> Mark {
    if place.present {
        Mark::Ok
    } else {
        Mark::Off
    }
}

fn describe(place: &Place) -> String {
    if !place.present {
        return format!("{} (absent)", place.path);
    }
    let mut facts = Vec::new();
    if let Some(count) = place.count {
        facts.push(format!("{count} entries"));
    }
    if let Some(size) = place.bytes {
        facts.push(bytes(size));
    }
    if facts.is_empty() {
        place.path.clone()
    } else {
        format!("{} ({})", place.path, facts.join(", "))
    }
}

fn bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 30 => format!("{:.1} GiB", n as f64 / (1u64 << 30) as f64),
        n if n >= 1 << 20 => format!("{:.1} MiB", n as f64 / (1u64 << 20) as f64),
        n if n >= 1 << 10 => format!("{:.1} KiB", n as f64 / 1024.0),
        n => format!("{n} B"),
    }
}
