//! The event stream's schema: one schema per event name (the envelope with
//! `event` fixed and `payload` typed), united in `StreamEvent` and
//! discriminated by `event`. The payload types are the ones the runtime
//! builds its events from (`protocol::EventPayload`). The response itself
//! is described one SSE frame at a time (`StreamFrame`: `id`, `event` and
//! `data`, whose JSON is a `StreamEvent`), which is how OpenAPI reads a
//! `text/event-stream` schema (3.2 names it `itemSchema`; tools read 3.1's
//! `schema` the same way).

use protocol::{
    ApprovalDecidedPayload, ApprovalRequiredPayload, ApprovalTimeoutPayload, EventName,
    ItemDeltaPayload, ItemPayload, ThreadForkedPayload, ThreadStartedPayload, ThreadUpdatedPayload,
    ToolCallRequestedPayload, ToolCallSettledPayload, TurnInterruptRequestedPayload, TurnPayload,
    TurnSteeredPayload, UserInputAnsweredPayload, UserInputCanceledPayload,
    UserInputRequiredPayload,
};
use serde_json::json;
use std::borrow::Cow;
use utoipa::openapi::{schema::Schema, RefOr};
use utoipa::{PartialSchema, ToSchema};

type Schemas = Vec<(String, RefOr<Schema>)>;

/// An event name, its payload schema's name, and what adds that schema
/// (and the schemas it refers to) to the document.
type PayloadEntry = (EventName, Cow<'static, str>, fn(&mut Schemas));

/// One frame's `data` on `GET /v1/threads/{id}/events`.
pub struct StreamEvent;

/// One frame of `GET /v1/threads/{id}/events`, as an SSE parser reads it.
pub struct StreamFrame;

impl PartialSchema for StreamFrame {
    fn schema() -> RefOr<Schema> {
        let names: Vec<_> = EventName::ALL.into_iter().map(EventName::as_str).collect();
        schema(json!({
            "description": "One SSE frame: `id:` is the event's seq, `event:` its name, `data:` the event as JSON (a `StreamEvent`).",
            "type": "object",
            "required": ["id", "event", "data"],
            "properties": {
                "id": { "type": "string", "pattern": "^[0-9]+$", "description": "The seq (resume after it with `since_seq` or `Last-Event-ID`)" },
                "event": { "type": "string", "enum": names },
                "data": {
                    "type": "string",
                    "contentMediaType": "application/json",
                    "contentSchema": reference("StreamEvent"),
                },
            },
        }))
    }
}

impl ToSchema for StreamFrame {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("StreamFrame")
    }

    fn schemas(out: &mut Schemas) {
        out.push((StreamEvent::name().into_owned(), StreamEvent::schema()));
        StreamEvent::schemas(out);
    }
}

/// One frame of `GET /v1/fleet/runs/{run_id}/events`.
pub struct FleetStreamFrame;

impl PartialSchema for FleetStreamFrame {
    fn schema() -> RefOr<Schema> {
        schema(json!({
            "description": "One SSE frame: `id:` is the event's seq, `event:` its name, `data:` the event as JSON (a `FleetEventEnvelope`).",
            "type": "object",
            "required": ["id", "event", "data"],
            "properties": {
                "id": { "type": "string", "pattern": "^[0-9]+$", "description": "The seq (resume after it with `since_seq` or `Last-Event-ID`)" },
                "event": { "type": "string", "enum": protocol::fleet_events::ALL },
                "data": {
                    "type": "string",
                    "contentMediaType": "application/json",
                    "contentSchema": reference("FleetEventEnvelope"),
                },
            },
        }))
    }
}

impl ToSchema for FleetStreamFrame {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("FleetStreamFrame")
    }

    fn schemas(out: &mut Schemas) {
        out.push((
            protocol::FleetEventEnvelope::name().into_owned(),
            protocol::FleetEventEnvelope::schema(),
        ));
    }
}

fn payloads() -> Vec<PayloadEntry> {
    fn entry<T: ToSchema>(name: EventName) -> PayloadEntry {
        fn add<T: ToSchema>(out: &mut Schemas) {
            out.push((T::name().into_owned(), T::schema()));
            T::schemas(out);
        }
        (name, T::name(), add::<T>)
    }
    use EventName as E;
    let all = vec![
        entry::<ThreadStartedPayload>(E::ThreadStarted),
        entry::<ThreadUpdatedPayload>(E::ThreadUpdated),
        entry::<ThreadForkedPayload>(E::ThreadForked),
        entry::<TurnPayload>(E::TurnStarted),
        entry::<TurnSteeredPayload>(E::TurnSteered),
        entry::<TurnInterruptRequestedPayload>(E::TurnInterruptRequested),
        entry::<TurnPayload>(E::TurnCompleted),
        entry::<TurnPayload>(E::TurnUndone),
        entry::<ItemPayload>(E::ItemStarted),
        entry::<ItemDeltaPayload>(E::ItemDelta),
        entry::<ItemPayload>(E::ItemCompleted),
        entry::<ItemPayload>(E::ItemFailed),
        entry::<ItemPayload>(E::ItemInterrupted),
        entry::<ApprovalRequiredPayload>(E::ApprovalRequired),
        entry::<ApprovalDecidedPayload>(E::ApprovalDecided),
        entry::<ApprovalTimeoutPayload>(E::ApprovalTimeout),
        entry::<UserInputRequiredPayload>(E::UserInputRequired),
        entry::<UserInputAnsweredPayload>(E::UserInputAnswered),
        entry::<UserInputCanceledPayload>(E::UserInputCanceled),
        entry::<ToolCallRequestedPayload>(E::ToolCallRequested),
        entry::<ToolCallSettledPayload>(E::ToolCallResolved),
        entry::<ToolCallSettledPayload>(E::ToolCallTimeout),
        entry::<ToolCallSettledPayload>(E::ToolCallCanceled),
        entry::<protocol::SnapshotCreatedPayload>(E::SnapshotCreated),
        entry::<protocol::WorkspaceRestoredPayload>(E::WorkspaceRestored),
        entry::<protocol::AgentRunPayload>(E::AgentSpawned),
        entry::<protocol::AgentRunPayload>(E::AgentCompleted),
    ];
    debug_assert_eq!(all.len(), EventName::ALL.len());
    all
}

/// `item.delta` → `ItemDeltaEvent`.
pub fn event_schema_name(event: EventName) -> String {
    let mut name = String::new();
    for word in event.as_str().split(['.', '_']) {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            name.extend(first.to_uppercase());
            name.push_str(chars.as_str());
        }
    }
    name + "Event"
}

fn reference(name: &str) -> serde_json::Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

/// Our own static JSON Schema as utoipa's type (a mistake here fails every
/// document test, never a request).
fn schema(value: serde_json::Value) -> RefOr<Schema> {
    serde_json::from_value(value).expect("a well-formed schema")
}

impl PartialSchema for StreamEvent {
    fn schema() -> RefOr<Schema> {
        let names: Vec<_> = EventName::ALL.into_iter().map(event_schema_name).collect();
        let mapping: serde_json::Map<_, _> = EventName::ALL
            .into_iter()
            .zip(&names)
            .map(|(event, name)| {
                (
                    event.as_str().to_string(),
                    json!(format!("#/components/schemas/{name}")),
                )
            })
            .collect();
        schema(json!({
            "description": "One event: the envelope, with `payload` typed by `event`.",
            "oneOf": names.iter().map(|n| reference(n)).collect::<Vec<_>>(),
            "discriminator": { "propertyName": "event", "mapping": mapping },
        }))
    }
}

impl ToSchema for StreamEvent {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("StreamEvent")
    }

    fn schemas(out: &mut Schemas) {
        out.push((
            protocol::EventEnvelope::name().into_owned(),
            <protocol::EventEnvelope as PartialSchema>::schema(),
        ));
        for (event, payload, add) in payloads() {
            add(out);
            let fixed = json!({ "type": "string", "enum": [event.as_str()] });
            out.push((
                event_schema_name(event),
                schema(json!({
                    "description": format!("`{event}`"),
                    "allOf": [
                        reference("EventEnvelope"),
                        {
                            "type": "object",
                            "required": ["event", "kind", "payload"],
                            "properties": {
                                "event": fixed,
                                "kind": fixed,
                                "payload": reference(&payload),
                            }
                        }
                    ]
                })),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_schema_names_are_distinct_camel_case() {
        assert_eq!(event_schema_name(EventName::ItemDelta), "ItemDeltaEvent");
        assert_eq!(
            event_schema_name(EventName::TurnInterruptRequested),
            "TurnInterruptRequestedEvent"
        );
        let names: std::collections::HashSet<_> =
            EventName::ALL.into_iter().map(event_schema_name).collect();
        assert_eq!(names.len(), EventName::ALL.len());
        assert_eq!(payloads().len(), EventName::ALL.len());
    }
}
