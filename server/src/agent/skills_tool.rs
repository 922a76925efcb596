//! `load_skill`: the model reads an enabled skill's instructions (or one of
//! its folder's files) when a task calls for it. Offered only when the
//! turn has skills; read-only, so it runs unasked, recorded as a tool call.

use crate::runtime::{engine::TurnContext, turn_writer::ItemEnd};
use protocol::ItemKind;
use serde_json::{json, Value};

pub const NAME: &str = "load_skill";
/// What the transcript keeps of a loaded file (the model gets it whole).
const MAX_RECORDED: usize = 64 * 1024;

pub fn spec(turn: &TurnContext) -> Value {
    let names: Vec<&str> = turn.skills.iter().map(|s| s.name.as_str()).collect();
    json!({"type": "function", "function": {
        "name": NAME,
        "description": "Read a skill's instructions (listed under Skills in the system prompt), or another file of its folder.",
        "parameters": {
            "type": "object", "required": ["name"],
            "properties": {
                "name": {"type": "string", "enum": names},
                "file": {"type": "string", "description": "A file of the skill's folder, relative to it (default: its SKILL.md)"}
            }
        }
    }})
}

pub async fn run(turn: &TurnContext, call_id: &str, arguments: &str) -> String {
    let args: Value = serde_json::from_str(arguments).unwrap_or(Value::Null);
    let name = args["name"].as_str().unwrap_or_default().to_string();
    let file = args["file"].as_str().map(str::to_string);
    let mut summary = match &file {
        Some(file) => format!("Read skill {name}: {file}"),
        None => format!("Loaded skill {name}"),
    };
    // The model chose these names: bounded in the transcript.
    crate::text::clip(&mut summary, 200, "…");
    let item = turn.items.start(ItemKind::ToolCall, summary).await;
    let skill = turn.skills.iter().find(|s| s.name == name).cloned();
    let result = match skill {
        None => Err(format!(
            "no enabled skill named {name:?}; the skills are: {}",
            turn.skills
                .iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
        Some(skill) => tokio::task::spawn_blocking(move || skill.load(file.as_deref()))
            .await
            .unwrap_or_else(|e| Err(format!("the skill could not be read: {e}"))),
    };
    let metadata = json!({
        "tool": NAME, "call_id": call_id, "arguments": arguments,
        "ok": result.is_ok(), "skill": name,
    });
    match result {
        Ok(text) => {
            let mut recorded = text.clone();
            crate::text::clip(&mut recorded, MAX_RECORDED, "\n… truncated");
            turn.items
                .end(&item, ItemEnd::Completed, Some(recorded), Some(metadata))
                .await;
            text
        }
        Err(error) => {
            turn.items
                .end(&item, ItemEnd::Failed, Some(error.clone()), Some(metadata))
                .await;
            format!("error: {error}")
        }
    }
}
