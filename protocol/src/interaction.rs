//! What a turn asks of its client besides approvals: answers to questions
//! (user input) and results of client-executed (dynamic) tools.

use serde::{Deserialize, Serialize};

/// `user_input.required` carries `{id, request}` with this request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UserInputRequest {
    pub questions: Vec<Question>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Question {
    pub id: String,
    #[serde(default)]
    pub header: String,
    pub question: String,
    #[serde(default)]
    pub options: Vec<QuestionOption>,
    #[serde(default)]
    pub allow_free_text: bool,
    #[serde(default)]
    pub multi_select: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct QuestionOption {
    pub label: String,
    #[serde(default)]
    pub description: String,
}

/// `POST /v1/user-input/{thread_id}/{input_id}`.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct AnswerUserInput {
    pub answers: Vec<Answer>,
}

/// One answer; a multi-select question may get several.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Answer {
    pub id: String,
    #[serde(default)]
    pub label: String,
    pub value: String,
}

// Answers can hold anything the user typed: never printed, even in debug logs.
impl std::fmt::Debug for AnswerUserInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "AnswerUserInput({} answers, redacted)",
            self.answers.len()
        )
    }
}

impl std::fmt::Debug for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Answer({:?}, redacted)", self.id)
    }
}

/// A tool the client executes, registered on a thread or a turn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct DynamicToolSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default = "empty_object_schema")]
    pub input_schema: serde_json::Value,
}

fn empty_object_schema() -> serde_json::Value {
    serde_json::json!({ "type": "object", "properties": {} })
}

/// `tool_call.requested`, and a row of `pending_dynamic_tool_calls`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DynamicToolCall {
    pub thread_id: String,
    pub turn_id: String,
    pub call_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub tool: String,
    pub arguments: serde_json::Value,
}

/// `POST /v1/threads/{id}/turns/{turn_id}/tool-calls/{call_id}/result`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct DynamicToolResult {
    pub success: bool,
    #[serde(default)]
    pub content: Vec<ToolContent>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ToolContent {
    InputText { text: String },
    InputImage { image_url: String },
}

impl DynamicToolResult {
    /// The result as the model reads it.
    pub fn to_text(&self) -> String {
        let parts: Vec<String> = self
            .content
            .iter()
            .map(|part| match part {
                ToolContent::InputText { text } => text.clone(),
                ToolContent::InputImage { image_url } => format!("[image] {image_url}"),
            })
            .collect();
        match (self.success, parts.is_empty()) {
            (true, true) => "(no output)".into(),
            (false, true) => "dynamic tool failed".into(),
            (true, false) => parts.join("\n"),
            (false, false) => format!("dynamic tool failed: {}", parts.join("\n")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_never_shows_answers() {
        let body: AnswerUserInput =
            serde_json::from_str(r#"{"answers":[{"id":"q1","label":"Other","value":"hunter2"}]}"#)
                .unwrap();
        assert!(!format!("{body:?} {:?}", body.answers[0]).contains("hunter2"));
    }

    #[test]
    fn results_read_as_text() {
        let result: DynamicToolResult = serde_json::from_str(
            r#"{"success":true,"content":[{"type":"input_text","text":"ok"},{"type":"input_image","image_url":"data:x"}]}"#,
        )
        .unwrap();
        assert_eq!(result.to_text(), "ok\n[image] data:x");
        let failed = DynamicToolResult {
            success: false,
            content: vec![],
        };
        assert_eq!(failed.to_text(), "dynamic tool failed");
        assert!(serde_json::from_str::<DynamicToolResult>(
            r#"{"success":true,"content":[{"type":"audio","data":""}]}"#
        )
        .is_err());
    }
}
