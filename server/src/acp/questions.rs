//! The agent's questions for the user (`user_input.required`) as ACP
//! `elicitation/create` forms, when the client advertises form
//! elicitation. An accepted form answers through
//! `Runtime::answer_user_input`, the one settlement owner, so the browser
//! may answer first (then the outstanding request is dropped, which sends
//! `$/cancel_request`). A declined or cancelled form ends the question
//! (`user_input.canceled`, reason `declined`) and the turn goes on without
//! answers. Answers are never logged.

use super::{session::Acp, wire};
use crate::runtime::error::RuntimeError;
use agent_client_protocol::{
    v1::{
        schema::{ClientCapabilities, CreateElicitationRequest, CreateElicitationResponse},
        ConnectionTo,
    },
    Client,
};
use protocol::{Answer, AnswerUserInput, Question, UserInputRequest};
use serde_json::{json, Map, Value};
use std::{collections::HashMap, sync::Arc};
use tokio::sync::oneshot;

/// Whether the client takes form elicitations.
pub(super) fn supported(client: &ClientCapabilities) -> bool {
    serde_json::to_value(client).unwrap_or_default()["elicitation"]["form"].is_object()
}

/// The forms a prompt has outstanding, by input id.
pub(super) struct Questions {
    acp: Arc<Acp>,
    cx: ConnectionTo<Client>,
    session_id: String,
    open: HashMap<String, oneshot::Sender<()>>,
}

impl Questions {
    pub fn new(acp: Arc<Acp>, cx: ConnectionTo<Client>, session_id: &str) -> Self {
        Self {
            acp,
            cx,
            session_id: session_id.to_string(),
            open: HashMap::new(),
        }
    }

    /// `user_input.required`: asks the client with a form.
    pub fn required(&mut self, payload: &Value) {
        let Some(input_id) = payload["input_id"].as_str().map(str::to_string) else {
            return;
        };
        let Ok(request) = serde_json::from_value::<UserInputRequest>(payload["request"].clone())
        else {
            return;
        };
        let Ok(form) = wire::<CreateElicitationRequest>(form(&self.session_id, &request)) else {
            return;
        };
        let (stop, stopped) = oneshot::channel();
        self.open.insert(input_id.clone(), stop);
        let (acp, cx, thread_id) = (self.acp.clone(), self.cx.clone(), self.session_id.clone());
        tokio::spawn(async move {
            let response = tokio::select! {
                response = cx.send_request(form).block_task() => response,
                _ = stopped => return,
            };
            let answers = match response {
                Ok(response) => answers(&response, &request),
                Err(error) => {
                    tracing::debug!(code = ?error.code, "acp: elicitation failed");
                    None
                }
            };
            let settled = match answers {
                Some(answers) => acp
                    .runtime
                    .answer_user_input(&thread_id, &input_id, answers)
                    .await
                    .map(|_| ()),
                None => acp.runtime.decline_user_input(&thread_id, &input_id).await,
            };
            match settled {
                Ok(_) | Err(RuntimeError::NotFound(_)) => {}
                Err(error) => tracing::info!(%error, "acp: the client's answers were refused"),
            }
        });
    }

    /// Answered or cancelled (here, elsewhere, or by the turn's end).
    pub fn settled(&mut self, input_id: &str) {
        if let Some(stop) = self.open.remove(input_id) {
            let _ = stop.send(());
        }
    }
}

/// The questions as one form: a property per question, all required.
fn form(session_id: &str, request: &UserInputRequest) -> Value {
    let properties: Map<String, Value> = request
        .questions
        .iter()
        .map(|q| (q.id.clone(), property(q)))
        .collect();
    let message = match request.questions.as_slice() {
        [only] => only.question.clone(),
        _ => "The agent has some questions.".to_string(),
    };
    json!({
        "sessionId": session_id,
        "mode": "form",
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": properties,
            "required": request.questions.iter().map(|q| q.id.clone()).collect::<Vec<_>>(),
        },
    })
}

fn property(q: &Question) -> Value {
    let title = if q.header.trim().is_empty() {
        q.question.clone()
    } else {
        q.header.clone()
    };
    let labels: Vec<&str> = q.options.iter().map(|o| o.label.as_str()).collect();
    match (q.options.is_empty(), q.multi_select, q.allow_free_text) {
        (false, true, false) => json!({
            "type": "array", "title": title, "description": q.question,
            "minItems": 1, "items": { "type": "string", "enum": labels },
        }),
        (false, false, false) => json!({
            "type": "string", "title": title, "description": q.question,
            "oneOf": q.options.iter().map(|o| {
                let mut option = json!({ "const": o.label, "title": o.label });
                if !o.description.is_empty() {
                    option["description"] = json!(o.description);
                }
                option
            }).collect::<Vec<_>>(),
        }),
        // Free text: the options become suggestions in the description.
        (false, _, true) => json!({
            "type": "string", "title": title,
            "description": format!("{} (for example: {})", q.question, labels.join(", ")),
        }),
        (true, _, _) => json!({ "type": "string", "title": title, "description": q.question }),
    }
}

/// An accepted form's answers; `None` when declined or cancelled.
fn answers(
    response: &CreateElicitationResponse,
    request: &UserInputRequest,
) -> Option<AnswerUserInput> {
    let response = serde_json::to_value(response).ok()?;
    if response["action"] != "accept" {
        return None;
    }
    let content = response["content"].as_object()?;
    let mut answers = Vec::new();
    for q in &request.questions {
        let values: Vec<String> = match &content.get(&q.id) {
            Some(Value::String(s)) => vec![s.clone()],
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            Some(Value::Number(n)) => vec![n.to_string()],
            Some(Value::Bool(b)) => vec![b.to_string()],
            _ => vec![],
        };
        answers.extend(values.into_iter().map(|value| Answer {
            id: q.id.clone(),
            label: value.clone(),
            value,
        }));
    }
    Some(AnswerUserInput { answers })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn question(id: &str, options: &[&str], multi: bool, free: bool) -> Question {
        serde_json::from_value(json!({
            "id": id, "header": "", "question": format!("{id}?"),
            "options": options.iter().map(|l| json!({"label": l})).collect::<Vec<_>>(),
            "multi_select": multi, "allow_free_text": free,
        }))
        .unwrap()
    }

    #[test]
    fn questions_become_a_form_the_schema_accepts_and_answers_come_back() {
        let request = UserInputRequest {
            questions: vec![
                question("pick", &["a", "b"], false, false),
                question("many", &["x", "y"], true, false),
                question("say", &[], false, true),
            ],
        };
        let form = form("thr_1", &request);
        let typed: CreateElicitationRequest = wire(form.clone()).expect("the form fits the schema");
        assert_eq!(
            form["requestedSchema"]["required"],
            json!(["pick", "many", "say"])
        );
        assert_eq!(
            form["requestedSchema"]["properties"]["pick"]["oneOf"][1]["const"],
            "b"
        );
        assert_eq!(
            form["requestedSchema"]["properties"]["many"]["items"]["enum"],
            json!(["x", "y"])
        );
        drop(typed);
        let accepted: CreateElicitationResponse = wire(json!({
            "action": "accept",
            "content": { "pick": "b", "many": ["x", "y"], "say": "hello" },
        }))
        .unwrap();
        let answers = answers(&accepted, &request).unwrap().answers;
        let pairs: Vec<(&str, &str)> = answers
            .iter()
            .map(|a| (a.id.as_str(), a.value.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("pick", "b"),
                ("many", "x"),
                ("many", "y"),
                ("say", "hello")
            ]
        );
        let declined: CreateElicitationResponse = wire(json!({ "action": "decline" })).unwrap();
        assert!(super::answers(&declined, &request).is_none());
    }
}
