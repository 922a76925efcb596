//! The read-only workspace tools an MCP client may call: the agent's own
//! bodies (`agent::tools::run`), so confinement, .gitignore, output bounds
//! and hardened git are exactly the model's.

use crate::agent::tools::{self, ToolEnv};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::Value;
use std::sync::Arc;

/// Offered over MCP: none of them writes or runs anything but git.
pub const READ_ONLY: [&str; 6] = [
    "read_file",
    "list_dir",
    "grep_files",
    "file_search",
    "git_status",
    "git_diff",
];

/// The MCP descriptions of `READ_ONLY`, from the specs the model gets.
pub fn list() -> Vec<Tool> {
    let specs = tools::specs();
    let Some(specs) = specs.as_array() else {
        return Vec::new();
    };
    specs
        .iter()
        .filter_map(|spec| {
            let function = &spec["function"];
            let name = function["name"].as_str()?;
            let name = READ_ONLY.iter().find(|n| **n == name)?;
            let description = function["description"].as_str().unwrap_or_default();
            let schema = function["parameters"].as_object()?.clone();
            Some(
                Tool::new(*name, description.to_string(), Arc::new(schema)).with_annotations(
                    ToolAnnotations::new()
                        .read_only(true)
                        .destructive(false)
                        .idempotent(true)
                        .open_world(false),
                ),
            )
        })
        .collect()
}

/// Whether `arguments` fit `schema`: required keys present, no unknown
/// keys, each value of its declared type. The agent's tools are lenient
/// with the model (a missing optional is a default); an MCP caller's
/// mistake is "invalid params" instead of a silently different call.
pub fn check_arguments(schema: &JsonObject, arguments: &JsonObject) -> Result<(), String> {
    let properties = schema.get("properties").and_then(Value::as_object);
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for key in required.iter().filter_map(Value::as_str) {
            if !arguments.contains_key(key) {
                return Err(format!("missing argument {key:?}"));
            }
        }
    }
    for (key, value) in arguments {
        let Some(declared) = properties.and_then(|p| p.get(key)) else {
            return Err(format!("unknown argument {key:?}"));
        };
        let ok = match declared["type"].as_str() {
            Some("string") => value.is_string(),
            Some("integer") => value.is_i64() || value.is_u64(),
            Some("boolean") => value.is_boolean(),
            Some("array") => value.is_array(),
            Some("object") => value.is_object(),
            _ => true,
        };
        if !ok {
            return Err(format!(
                "argument {key:?} must be of type {}",
                declared["type"].as_str().unwrap_or("?")
            ));
        }
    }
    Ok(())
}

/// Runs one checked call; a refusal (outside the workspace, missing file)
/// is the tool's own error text.
pub async fn call(
    env: &ToolEnv,
    name: &str,
    arguments: &JsonObject,
) -> Result<String, tools::ToolError> {
    let arguments = Value::Object(arguments.clone()).to_string();
    tools::run(env, name, &arguments, "")
        .await
        .map(|out| out.text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> JsonObject {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn the_six_read_only_tools_keep_the_model_schemas() {
        let listed = list();
        let names: Vec<&str> = listed.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, READ_ONLY);
        let read = &listed[0];
        assert_eq!(read.input_schema["required"], json!(["path"]));
    }

    #[test]
    fn arguments_are_checked_against_the_schema() {
        let read = list().remove(0);
        let schema = read.input_schema.as_ref();
        assert!(check_arguments(schema, &object(json!({"path": "a"}))).is_ok());
        assert!(check_arguments(schema, &object(json!({"path": "a", "start_line": 2}))).is_ok());
        let missing = check_arguments(schema, &object(json!({}))).unwrap_err();
        assert!(missing.contains("\"path\""), "{missing}");
        assert!(check_arguments(schema, &object(json!({"path": 3}))).is_err());
        assert!(check_arguments(schema, &object(json!({"path": "a", "start_line": 1.5}))).is_err());
        assert!(check_arguments(schema, &object(json!({"path": "a", "file": "b"}))).is_err());
    }
}
