//! A selected thread as the browser holds it: the snapshot, then every
//! event applied in order. Item text lives in its own signal so a delta
//! re-renders one text node, not the transcript.

use crate::api::record;
use crate::protocol::{
    EventEnvelope, EventName, ThreadDetail, ThreadRecord, TurnItemRecord, TurnRecord,
};
use leptos::prelude::*;
use serde_json::Value;

/// One transcript entry.
#[derive(Clone, Copy)]
pub struct Entry {
    pub id: StoredValue<String>,
    pub record: RwSignal<TurnItemRecord>,
    pub text: RwSignal<String>,
}

impl Entry {
    /// The text moves into its own signal; `record.detail` is left empty.
    pub(super) fn new(mut record: TurnItemRecord) -> Self {
        let text = record.detail.take().unwrap_or_default();
        Self {
            id: StoredValue::new(record.id.clone()),
            record: RwSignal::new(record),
            text: RwSignal::new(text),
        }
    }

    /// Brings the entry up to a newer record of the same item. The stored
    /// text is authoritative once present; signals change only if it differs.
    fn update(&self, mut record: TurnItemRecord) {
        if let Some(text) = record.detail.take().filter(|t| !t.is_empty()) {
            if self.text.with_untracked(|current| *current != text) {
                self.text.set(text);
            }
        }
        if self.record.with_untracked(|current| *current != record) {
            self.record.set(record);
        }
    }
}

/// The state of the event stream, for the connection indicator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Connection {
    Connecting,
    Live,
    Reconnecting,
    /// The session ended (401): nothing more will arrive.
    Ended,
}

/// What applying an event found.
#[derive(Debug, PartialEq, Eq)]
pub enum Applied {
    Fresh,
    /// Already seen (a replay overlap): dropped.
    Duplicate,
    /// The stream skipped something: load a fresh snapshot.
    Gap,
    /// Applied, but the snapshot's runtime-derived facts (the effective
    /// model) may have changed with it: load a fresh snapshot.
    Stale,
}

#[derive(Clone, Copy)]
pub struct Live {
    pub thread: RwSignal<ThreadRecord>,
    /// The model the next turn will use, as the runtime resolves it.
    pub effective_model: RwSignal<Option<String>>,
    pub turns: RwSignal<Vec<TurnRecord>>,
    pub items: RwSignal<Vec<Entry>>,
    /// Items older than the first in `items` not fetched yet (`paging.rs`).
    pub missing: RwSignal<usize>,
    pub approvals: RwSignal<Vec<Value>>,
    pub inputs: RwSignal<Vec<Value>>,
    pub tool_calls: RwSignal<Vec<Value>>,
    /// The newest seq applied.
    pub cursor: RwSignal<i64>,
    pub connection: RwSignal<Connection>,
}

impl Live {
    pub fn new(detail: ThreadDetail) -> Self {
        let live = Self {
            thread: RwSignal::new(detail.thread.clone()),
            effective_model: RwSignal::new(None),
            turns: RwSignal::new(Vec::new()),
            items: RwSignal::new(Vec::new()),
            missing: RwSignal::new(0),
            approvals: RwSignal::new(Vec::new()),
            inputs: RwSignal::new(Vec::new()),
            tool_calls: RwSignal::new(Vec::new()),
            cursor: RwSignal::new(0),
            connection: RwSignal::new(Connection::Connecting),
        };
        live.reset(detail);
        live
    }

    /// Replaces everything with a fresh snapshot. Items already shown keep
    /// their entry (the transcript is keyed by item id and would otherwise
    /// keep rendering the old one), updated to the snapshot's record.
    pub fn reset(&self, detail: ThreadDetail) {
        self.thread.set(detail.thread);
        self.effective_model.set(detail.effective_model);
        self.turns.set(detail.turns);
        let mut known: std::collections::HashMap<String, Entry> = self
            .items
            .with_untracked(|items| items.iter().map(|e| (e.id.get_value(), *e)).collect());
        let items = detail
            .items
            .into_iter()
            .map(|record| match known.remove(&record.id) {
                Some(entry) => {
                    entry.update(record);
                    entry
                }
                None => Entry::new(record),
            })
            .collect();
        self.items.set(items);
        self.approvals.set(detail.pending_approvals);
        self.inputs.set(detail.pending_user_inputs);
        self.tool_calls.set(detail.pending_dynamic_tool_calls);
        self.cursor.set(detail.latest_seq);
    }

    /// The running turn, if any.
    pub fn active_turn(&self) -> Option<String> {
        self.turns.with(|turns| {
            turns
                .iter()
                .rev()
                .find(|t| t.status.is_active())
                .map(|t| t.id.clone())
        })
    }

    /// Applies one event in order; refuses to skip over missing ones.
    pub fn apply(&self, event: &EventEnvelope) -> Applied {
        let cursor = self.cursor.get_untracked();
        if event.seq <= cursor {
            return Applied::Duplicate;
        }
        if event.previous_seq != cursor {
            return Applied::Gap;
        }
        self.cursor.set(event.seq);
        let payload = &event.payload;
        // Names this build does not know (a newer server's) change nothing.
        let Some(name) = EventName::parse(&event.event) else {
            return Applied::Fresh;
        };
        use EventName as E;
        match name {
            E::ThreadUpdated => {
                self.set_thread(payload);
                if changed_routing(payload) {
                    return Applied::Stale;
                }
            }
            E::TurnStarted | E::TurnCompleted | E::TurnUndone => self.set_turn(payload),
            E::ItemStarted | E::ItemCompleted | E::ItemFailed | E::ItemInterrupted => {
                self.set_item(payload)
            }
            E::ItemDelta => self.append(event.item_id.as_deref(), payload),
            E::ApprovalRequired => push(self.approvals, payload),
            E::ApprovalDecided => remove(self.approvals, payload, "approval_id"),
            E::UserInputRequired => push(self.inputs, payload),
            E::UserInputAnswered | E::UserInputCanceled => remove(self.inputs, payload, "input_id"),
            E::ToolCallRequested => push(self.tool_calls, payload),
            E::ToolCallResolved | E::ToolCallTimeout | E::ToolCallCanceled => {
                remove(self.tool_calls, payload, "call_id")
            }
            E::ThreadStarted
            | E::ThreadForked
            | E::TurnSteered
            | E::TurnInterruptRequested
            | E::ApprovalTimeout
            | E::SnapshotCreated => {}
            E::AgentSpawned | E::AgentCompleted => {
                self.link_sub_agent(event.item_id.as_deref(), payload)
            }
            E::WorkspaceRestored => self.mark_reverted(&event.created_at, payload),
        }
        Applied::Fresh
    }

    fn set_thread(&self, payload: &Value) {
        if let Some(thread) = record(&payload["thread"]) {
            self.thread.set(thread);
        }
    }

    fn set_turn(&self, payload: &Value) {
        let Some(turn) = record::<TurnRecord>(&payload["turn"]) else {
            return;
        };
        self.turns
            .update(|turns| match turns.iter_mut().find(|t| t.id == turn.id) {
                Some(existing) => *existing = turn,
                None => turns.push(turn),
            });
    }

    fn set_item(&self, payload: &Value) {
        let Some(item) = record::<TurnItemRecord>(&payload["item"]) else {
            return;
        };
        let existing = self.items.with_untracked(|items| {
            items
                .iter()
                .find(|e| e.id.with_value(|id| *id == item.id))
                .copied()
        });
        match existing {
            Some(entry) => entry.update(item),
            None => self.items.update(|items| items.push(Entry::new(item))),
        }
    }

    /// A review action's revert shows on its card at once: the runtime
    /// marks the item just after this event, with no event of its own.
    fn mark_reverted(&self, at: &str, payload: &Value) {
        let restored = &payload["restored"];
        let Some(action_id) = restored["review_action_id"].as_str() else {
            return;
        };
        let Some(entry) = self.entry(action_id) else {
            return;
        };
        entry.record.update(|record| {
            if let Some(action) = record.metadata.get_mut("action") {
                action["reverted"] =
                    serde_json::json!({ "at": at, "snapshot_id": restored["snapshot"]["id"] });
            }
        });
    }

    /// A `spawn_agent` item shows its child's thread and status as they
    /// change (the runtime marks the item itself with no event of its own).
    /// An end after the parent's turn ended comes at thread scope: the
    /// item is then the one linked to the run.
    fn link_sub_agent(&self, item_id: Option<&str>, payload: &Value) {
        let entry = match item_id {
            Some(id) => self.entry(id),
            None => self.items.with_untracked(|items| {
                items
                    .iter()
                    .find(|e| {
                        e.record.with_untracked(|r| {
                            r.metadata["run_id"] == payload["run_id"]
                                && payload["run_id"].is_string()
                        })
                    })
                    .copied()
            }),
        };
        let Some(entry) = entry else {
            return;
        };
        entry.record.update(|record| {
            if let Some(metadata) = record.metadata.as_object_mut() {
                metadata.insert("run_id".into(), payload["run_id"].clone());
                metadata.insert("child_thread_id".into(), payload["thread_id"].clone());
                metadata.insert("run_status".into(), payload["status"].clone());
            }
        });
    }

    fn entry(&self, item_id: &str) -> Option<Entry> {
        self.items.with_untracked(|items| {
            items
                .iter()
                .find(|e| e.id.with_value(|id| id == item_id))
                .copied()
        })
    }

    fn append(&self, item_id: Option<&str>, payload: &Value) {
        let (Some(item_id), Some(delta)) = (item_id, payload["delta"].as_str()) else {
            return;
        };
        if let Some(entry) = self.entry(item_id) {
            entry.text.update(|text| text.push_str(delta));
        }
    }
}

/// Whether a thread.updated changed what decides the effective model.
fn changed_routing(payload: &Value) -> bool {
    payload["changed"]
        .as_array()
        .is_some_and(|c| c.iter().any(|f| f == "model" || f == "model_provider"))
}

fn push(list: RwSignal<Vec<Value>>, payload: &Value) {
    list.update(|list| {
        if !list.iter().any(|v| v["id"] == payload["id"]) {
            list.push(payload.clone());
        }
    });
}

fn remove(list: RwSignal<Vec<Value>>, payload: &Value, key: &str) {
    let id = payload[key].clone();
    list.update(|list| list.retain(|v| v["id"] != id));
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use serde_json::json;

    pub(in crate::live) fn detail() -> ThreadDetail {
        serde_json::from_value(json!({
            "thread": {"id": "thr_1", "created_at": "", "updated_at": "", "model": null,
                "model_provider": null, "workspace": null, "mode": "agent", "allow_shell": true,
                "trust_mode": false, "auto_approve": false, "title": null, "system_prompt": null,
                "task_id": null, "latest_turn_id": null, "latest_response_bookmark": null, "archived": false},
            "turns": [], "items": [], "latest_seq": 10, "pending_approvals": [],
            "pending_user_inputs": [], "pending_dynamic_tool_calls": []
        }))
        .unwrap()
    }

    fn event(
        seq: i64,
        previous: i64,
        name: &str,
        item: Option<&str>,
        payload: Value,
    ) -> EventEnvelope {
        EventEnvelope {
            schema_version: 1,
            seq,
            previous_seq: previous,
            event: name.into(),
            kind: name.into(),
            thread_id: "thr_1".into(),
            turn_id: Some("turn_1".into()),
            item_id: item.map(Into::into),
            timestamp: String::new(),
            created_at: String::new(),
            payload,
        }
    }

    #[test]
    fn deltas_apply_once_and_gaps_are_detected() {
        let owner = Owner::new();
        owner.set();
        let live = Live::new(detail());
        let item = json!({"item": {"id": "item_1", "turn_id": "turn_1", "kind": "agent_message",
            "status": "in_progress", "summary": "", "detail": null, "metadata": {}, "started_at": null, "ended_at": null}});
        assert_eq!(
            live.apply(&event(11, 10, "item.started", Some("item_1"), item)),
            Applied::Fresh
        );
        let delta = event(
            12,
            11,
            "item.delta",
            Some("item_1"),
            json!({"delta": "Hel", "kind": "agent_message"}),
        );
        assert_eq!(live.apply(&delta), Applied::Fresh);
        assert_eq!(
            live.apply(&delta),
            Applied::Duplicate,
            "a replayed delta is dropped"
        );
        let more = event(
            13,
            12,
            "item.delta",
            Some("item_1"),
            json!({"delta": "lo", "kind": "agent_message"}),
        );
        assert_eq!(live.apply(&more), Applied::Fresh);
        let text = live
            .items
            .with_untracked(|items| items[0].text.get_untracked());
        assert_eq!(text, "Hello");
        let skipped = event(20, 18, "item.delta", Some("item_1"), json!({"delta": "!"}));
        assert_eq!(live.apply(&skipped), Applied::Gap);
        assert_eq!(live.cursor.get_untracked(), 13);
    }

    #[test]
    fn a_fresh_snapshot_updates_the_entries_already_shown() {
        let owner = Owner::new();
        owner.set();
        let item = |status: &str, text: &str| {
            serde_json::from_value::<TurnItemRecord>(json!({"id": "item_1", "turn_id": "turn_1",
                "kind": "agent_message", "status": status, "summary": "", "detail": text,
                "metadata": {}, "started_at": null, "ended_at": null}))
            .unwrap()
        };
        let mut first = detail();
        first.items = vec![item("in_progress", "Hel")];
        let live = Live::new(first);
        let shown = live.items.with_untracked(|items| items[0]);
        let mut fresh = detail();
        fresh.items = vec![item("completed", "Hello")];
        fresh.latest_seq = 20;
        live.reset(fresh);
        let kept = live.items.with_untracked(|items| items[0]);
        assert_eq!(kept.text, shown.text, "the rendered entry is kept");
        assert_eq!(shown.text.get_untracked(), "Hello");
        assert_eq!(
            shown.record.with_untracked(|r| r.status),
            crate::protocol::ItemStatus::Completed
        );
        assert_eq!(live.cursor.get_untracked(), 20);
    }

    #[test]
    fn pending_requests_come_and_go() {
        let owner = Owner::new();
        owner.set();
        let live = Live::new(detail());
        let required = json!({"id": "appr_1", "approval_id": "appr_1", "tool_name": "exec_shell"});
        live.apply(&event(11, 10, "approval.required", None, required));
        assert_eq!(live.approvals.with_untracked(Vec::len), 1);
        live.apply(&event(
            12,
            11,
            "approval.decided",
            None,
            json!({"approval_id": "appr_1", "decision": "allow"}),
        ));
        assert_eq!(live.approvals.with_untracked(Vec::len), 0);
    }

    #[test]
    fn a_revert_marks_its_review_action() {
        let owner = Owner::new();
        owner.set();
        let mut first = detail();
        first.items = vec![serde_json::from_value(json!({"id": "item_a", "turn_id": "turn_1",
            "kind": "review_action", "status": "completed", "summary": "", "detail": null,
            "metadata": {"action": {"finding_ids": ["item_f"], "turn_id": "turn_1", "reverted": null}},
            "started_at": null, "ended_at": null}))
        .unwrap()];
        let live = Live::new(first);
        let restored = json!({"restored": {"reason": "review_revert", "restored_from": "snap_1",
            "before": "snap_2", "snapshot": {"id": "snap_3"}, "files": [], "review_action_id": "item_a"}});
        live.apply(&event(11, 10, "workspace.restored", None, restored));
        let action = live
            .items
            .with_untracked(|items| items[0].record.get_untracked().review_action())
            .unwrap();
        let reverted = action.reverted.expect("marked reverted");
        assert_eq!(reverted.snapshot_id.as_deref(), Some("snap_3"));
    }

    #[test]
    fn a_spawn_item_follows_its_sub_agent() {
        let owner = Owner::new();
        owner.set();
        let mut first = detail();
        first.items = vec![serde_json::from_value(json!({"id": "item_s", "turn_id": "turn_1",
            "kind": "tool_call", "status": "in_progress", "summary": "Sub-agent: look",
            "detail": null, "metadata": {"tool": "spawn_agent"}, "started_at": null, "ended_at": null}))
        .unwrap()];
        let live = Live::new(first);
        let run = |status: &str| {
            json!({"run_id": "agent_1", "thread_id": "thr_c", "turn_id": "turn_c",
            "status": status, "depth": 1, "prompt": "look"})
        };
        live.apply(&event(
            11,
            10,
            "agent.spawned",
            Some("item_s"),
            run("running"),
        ));
        let metadata = || {
            live.items
                .with_untracked(|items| items[0].record.get_untracked().metadata)
        };
        assert_eq!(metadata()["child_thread_id"], "thr_c");
        assert_eq!(metadata()["run_status"], "running");
        assert_eq!(metadata()["tool"], "spawn_agent", "the rest is kept");
        live.apply(&event(
            12,
            11,
            "agent.completed",
            Some("item_s"),
            run("completed"),
        ));
        assert_eq!(metadata()["run_status"], "completed");
        // A run of an item this page does not show changes nothing.
        live.apply(&event(
            13,
            12,
            "agent.completed",
            Some("item_x"),
            run("failed"),
        ));
        assert_eq!(metadata()["run_status"], "completed");
        // An end at thread scope (after the parent's turn) finds its item by run.
        live.apply(&event(14, 13, "agent.completed", None, run("interrupted")));
        assert_eq!(metadata()["run_status"], "interrupted");
    }
}
