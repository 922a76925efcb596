//! What an announcement says, from the event that caused it.

use crate::protocol::{EventEnvelope, EventName, TurnRecord, TurnStatus, UserInputRequest};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Announcement {
    pub title: String,
    pub body: String,
    /// Grouping key: a newer announcement of the thread replaces the older.
    pub tag: String,
}

impl Announcement {
    /// `None` for events nobody needs to hear about.
    pub fn of(event: &EventEnvelope, thread_title: Option<&str>) -> Option<Announcement> {
        let thread = thread_title.unwrap_or("Untitled thread");
        let payload = &event.payload;
        let (title, detail) = match EventName::parse(&event.event)? {
            EventName::ApprovalRequired => {
                let tool = payload["tool_name"].as_str().unwrap_or("a tool");
                let what = payload["description"].as_str().unwrap_or_default();
                (format!("Approval needed: {tool}"), what.to_string())
            }
            EventName::UserInputRequired => {
                let request: UserInputRequest = crate::api::record(&payload["request"])?;
                let first = request.questions.first().map(|q| q.question.clone());
                ("Question for you".to_string(), first.unwrap_or_default())
            }
            EventName::TurnCompleted => {
                let turn: TurnRecord = crate::api::record(&payload["turn"])?;
                match turn.status {
                    TurnStatus::Completed => ("Turn finished".to_string(), String::new()),
                    TurnStatus::Failed => {
                        ("Turn failed".to_string(), turn.error.unwrap_or_default())
                    }
                    TurnStatus::Interrupted | TurnStatus::Canceled => {
                        ("Turn stopped".to_string(), String::new())
                    }
                    TurnStatus::Queued | TurnStatus::InProgress => return None,
                }
            }
            _ => return None,
        };
        let body = match detail.trim() {
            "" => thread.to_string(),
            detail => format!("{thread}: {}", clip(detail, 140)),
        };
        Some(Announcement {
            title,
            body,
            tag: format!("codewhale-{}", event.thread_id),
        })
    }
}

fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

/// `(n) title`, or the title alone for 0; an older count is replaced.
pub fn with_count(title: &str, count: u32) -> String {
    let base = match title
        .strip_prefix('(')
        .and_then(|rest| rest.split_once(") "))
    {
        Some((n, rest)) if n.chars().all(|c| c.is_ascii_digit()) => rest,
        _ => title,
    };
    match count {
        0 => base.to_string(),
        n => format!("({n}) {base}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn event(name: &str, payload: Value) -> EventEnvelope {
        EventEnvelope {
            schema_version: 1,
            seq: 2,
            previous_seq: 1,
            event: name.into(),
            kind: name.into(),
            thread_id: "thr_1".into(),
            turn_id: Some("turn_1".into()),
            item_id: None,
            timestamp: String::new(),
            created_at: String::new(),
            payload,
        }
    }

    fn turn_ended(status: TurnStatus, error: Option<&str>) -> EventEnvelope {
        let turn = TurnRecord {
            id: "turn_1".into(),
            thread_id: "thr_1".into(),
            status,
            input_summary: String::new(),
            created_at: String::new(),
            started_at: None,
            ended_at: None,
            duration_ms: None,
            usage: Default::default(),
            effective_provider: None,
            effective_model: None,
            effective_billing_surface: None,
            error: error.map(Into::into),
            steer_count: 0,
            instructions: Vec::new(),
            undone_at: None,
        };
        event("turn.completed", json!({ "turn": turn }))
    }

    #[test]
    fn what_needs_the_user_is_announced() {
        let approval = event(
            "approval.required",
            json!({"tool_name": "exec_shell", "description": "echo hi"}),
        );
        let said = Announcement::of(&approval, Some("Build")).unwrap();
        assert_eq!(said.title, "Approval needed: exec_shell");
        assert_eq!(said.body, "Build: echo hi");
        assert_eq!(said.tag, "codewhale-thr_1");
        let question = event(
            "user_input.required",
            json!({"request": {"questions": [{"id": "q", "question": "Which database?"}]}}),
        );
        let said = Announcement::of(&question, None).unwrap();
        assert_eq!(said.body, "Untitled thread: Which database?");
        assert!(Announcement::of(&event("item.delta", json!({})), None).is_none());
    }

    #[test]
    fn turn_ends_say_how_they_ended() {
        let said = |status, error| Announcement::of(&turn_ended(status, error), Some("T")).unwrap();
        assert_eq!(said(TurnStatus::Completed, None).title, "Turn finished");
        let failed = said(TurnStatus::Failed, Some("provider said no"));
        assert_eq!(failed.title, "Turn failed");
        assert_eq!(failed.body, "T: provider said no");
        assert_eq!(said(TurnStatus::Interrupted, None).title, "Turn stopped");
    }

    #[test]
    fn the_title_count_replaces_an_older_one() {
        assert_eq!(with_count("codewhale", 2), "(2) codewhale");
        assert_eq!(with_count("(2) codewhale", 3), "(3) codewhale");
        assert_eq!(with_count("(2) codewhale", 0), "codewhale");
        assert_eq!(with_count("(draft) notes", 0), "(draft) notes");
    }
}
