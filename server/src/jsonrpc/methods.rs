//! The methods of the stdio control transport and what each calls on the
//! runtime. Params use the `/v1` field names; a method's body is the `/v1`
//! request type with the path's ids (`thread_id`, `turn_id`, …) alongside.

use super::{
    session::Session,
    wire::{RpcError, METHOD_NOT_FOUND},
};
use crate::runtime::stream::Cursor;
use protocol::{
    AnswerUserInput, Capabilities, CreateThread, DecideApproval, Health, ListThreads, PatchThread,
    StartTurn, SteerTurn, RUNTIME_API_VERSION, SERVICE_NAME,
};
use serde::{de::DeserializeOwned, Serialize};
use serde_json::{json, Map, Value};
use tokio::sync::oneshot;

/// Every method, by family. Pinned by a drift test: an SDK may rely on it.
pub const FAMILIES: &[(&str, &[&str])] = &[
    ("control", &["healthz", "capabilities", "shutdown"]),
    (
        "thread",
        &[
            "thread/capabilities",
            "thread/create",
            "thread/list",
            "thread/read",
            "thread/start",
            "thread/steer",
            "thread/interrupt",
            "thread/set_name",
            "thread/archive",
            "thread/unarchive",
            "thread/approve",
            "thread/answer",
            "thread/subscribe",
            "thread/unsubscribe",
        ],
    ),
    ("app", &["app/capabilities", "app/models", "app/config/get"]),
    ("prompt", &["prompt/capabilities", "prompt/run"]),
];

/// The notification a subscription's events arrive as.
pub const EVENT_NOTIFICATION: &str = "thread/event";
/// Sent once when a subscription's stream ends without `thread/unsubscribe`
/// (the runtime is stopping, or reading the store failed): resubscribe
/// from the last seq to go on.
pub const ENDED_NOTIFICATION: &str = "thread/subscription_ended";

pub fn all_methods() -> Vec<&'static str> {
    FAMILIES
        .iter()
        .flat_map(|(_, methods)| methods.iter().copied())
        .collect()
}

/// A method's answer, and a signal to fire once that answer is queued (a
/// subscription starts sending only after its reply).
pub struct Outcome {
    pub result: Value,
    pub after: Option<oneshot::Sender<()>>,
}

impl Outcome {
    fn of(result: impl Serialize) -> Result<Self, RpcError> {
        let result = serde_json::to_value(result)
            .map_err(|e| RpcError::new(super::wire::INTERNAL_ERROR, e.to_string()))?;
        Ok(Self {
            result,
            after: None,
        })
    }
}

pub async fn call(
    session: &std::sync::Arc<Session>,
    method: &str,
    mut params: Map<String, Value>,
) -> Result<Outcome, RpcError> {
    let runtime = session.runtime();
    match method {
        "healthz" => {
            none(params)?;
            Outcome::of(Health::ok())
        }
        "capabilities" => {
            none(params)?;
            Outcome::of(capabilities())
        }
        "thread/capabilities" | "app/capabilities" | "prompt/capabilities" => {
            none(params)?;
            let family = method.split('/').next().unwrap_or_default();
            Outcome::of(json!({ "family": family, "methods": family_methods(family) }))
        }
        "shutdown" => {
            none(params)?;
            let interrupted = session.shutdown().await;
            Outcome::of(json!({ "ok": true, "interrupted_turns": interrupted }))
        }
        "thread/create" => Outcome::of(runtime.create_thread(body::<CreateThread>(params)?).await?),
        "thread/list" => Outcome::of(runtime.list_threads(&body::<ListThreads>(params)?).await?),
        "thread/read" => {
            let thread_id = id(&mut params, "thread_id")?;
            none(params)?;
            Outcome::of(runtime.thread(&thread_id).await?)
        }
        "thread/start" => {
            let thread_id = id(&mut params, "thread_id")?;
            Outcome::of(
                runtime
                    .start_turn(&thread_id, body::<StartTurn>(params)?)
                    .await?,
            )
        }
        "thread/steer" => {
            let thread_id = id(&mut params, "thread_id")?;
            let turn_id = id(&mut params, "turn_id")?;
            let steer = body::<SteerTurn>(params)?;
            Outcome::of(runtime.steer_turn(&thread_id, &turn_id, steer).await?)
        }
        "thread/interrupt" => {
            let thread_id = id(&mut params, "thread_id")?;
            let turn_id = id(&mut params, "turn_id")?;
            none(params)?;
            Outcome::of(runtime.interrupt_turn(&thread_id, &turn_id).await?)
        }
        "thread/set_name" => {
            let thread_id = id(&mut params, "thread_id")?;
            // `title` is the `/v1` field; `name` reads naturally with this method.
            let title = match (params.remove("title"), params.remove("name")) {
                (Some(Value::String(title)), None) | (None, Some(Value::String(title))) => title,
                _ => {
                    return Err(RpcError::invalid_params(
                        "give the new name as a string in `title` (or `name`)",
                    ))
                }
            };
            none(params)?;
            let patch = PatchThread {
                title: Some(title),
                ..PatchThread::default()
            };
            Outcome::of(runtime.patch_thread(&thread_id, patch).await?)
        }
        "thread/archive" | "thread/unarchive" => {
            let thread_id = id(&mut params, "thread_id")?;
            none(params)?;
            let patch = PatchThread {
                archived: Some(method == "thread/archive"),
                ..PatchThread::default()
            };
            Outcome::of(runtime.patch_thread(&thread_id, patch).await?)
        }
        "thread/approve" => {
            let approval_id = id(&mut params, "approval_id")?;
            let decision = body::<DecideApproval>(params)?;
            Outcome::of(runtime.decide_approval(&approval_id, decision).await?)
        }
        "thread/answer" => {
            let thread_id = id(&mut params, "thread_id")?;
            let input_id = id(&mut params, "input_id")?;
            let answers = body::<AnswerUserInput>(params)?;
            Outcome::of(
                runtime
                    .answer_user_input(&thread_id, &input_id, answers)
                    .await?,
            )
        }
        "thread/subscribe" => {
            let thread_id = id(&mut params, "thread_id")?;
            let cursor = Cursor {
                since_seq: integer(&mut params, "since_seq")?.unwrap_or(0),
                replay_limit: integer(&mut params, "replay_limit")?,
            };
            none(params)?;
            let frames = runtime.subscribe(&thread_id, cursor).await?;
            let (subscription_id, after) = session.forward(frames);
            Ok(Outcome {
                result: json!({ "subscription_id": subscription_id, "thread_id": thread_id }),
                after: Some(after),
            })
        }
        "thread/unsubscribe" => {
            let subscription_id = id(&mut params, "subscription_id")?;
            none(params)?;
            Outcome::of(json!({ "ok": session.unsubscribe(&subscription_id) }))
        }
        "app/models" => {
            none(params)?;
            Outcome::of(runtime.providers())
        }
        "app/config/get" => {
            none(params)?;
            Outcome::of(session.config_view())
        }
        "prompt/run" => Outcome::of(prompt_run(session, params).await?),
        _ => Err(RpcError::new(
            METHOD_NOT_FOUND,
            format!("no such method: {method} (see `capabilities`)"),
        )),
    }
}

fn capabilities() -> Value {
    let families: Map<String, Value> = FAMILIES
        .iter()
        .map(|(family, methods)| ((*family).to_string(), json!(methods)))
        .collect();
    json!({
        "service": SERVICE_NAME,
        "runtime_api_version": RUNTIME_API_VERSION,
        "codewhale_version": env!("CARGO_PKG_VERSION"),
        "transport": "stdio",
        "families": families,
        "methods": all_methods(),
        "notifications": [EVENT_NOTIFICATION, ENDED_NOTIFICATION],
        "capabilities": Capabilities::current(),
    })
}

fn family_methods(family: &str) -> &'static [&'static str] {
    FAMILIES
        .iter()
        .find(|(name, _)| *name == family)
        .map_or(&[], |(_, methods)| methods)
}

/// One turn, start to finish: on a new thread unless `thread_id` names one;
/// answers with the turn and its final answer once the turn has ended.
async fn prompt_run(session: &Session, mut params: Map<String, Value>) -> Result<Value, RpcError> {
    let runtime = session.runtime();
    let thread_id = match params.remove("thread_id") {
        Some(Value::String(id)) => Some(id),
        None => None,
        Some(_) => return Err(RpcError::invalid_params("thread_id must be a string")),
    };
    // The thread's settings come with a new thread; a given thread keeps its own.
    let mut thread_fields = Map::new();
    for key in ["workspace", "system_prompt", "title"] {
        if let Some(value) = params.remove(key) {
            if thread_id.is_some() {
                return Err(RpcError::invalid_params(format!(
                    "{key} is a new thread's setting; leave it out when giving thread_id"
                )));
            }
            thread_fields.insert(key.into(), value);
        }
    }
    let turn = body::<StartTurn>(params)?;
    let thread_id = match thread_id {
        Some(id) => id,
        None => {
            runtime
                .create_thread(body::<CreateThread>(thread_fields)?)
                .await?
                .id
        }
    };
    let end = runtime.run_turn_to_end(&thread_id, turn).await?;
    Ok(json!({ "thread_id": end.thread_id, "turn": end.turn, "answer": end.answer }))
}

/// Refuses params a method does not take (as `/v1` refuses unknown fields).
fn none(params: Map<String, Value>) -> Result<(), RpcError> {
    match params.keys().next() {
        None => Ok(()),
        Some(key) => Err(RpcError::invalid_params(format!("unknown param `{key}`"))),
    }
}

fn id(params: &mut Map<String, Value>, key: &str) -> Result<String, RpcError> {
    match params.remove(key) {
        Some(Value::String(id)) if !id.is_empty() => Ok(id),
        Some(_) => Err(RpcError::invalid_params(format!(
            "{key} must be a non-empty string"
        ))),
        None => Err(RpcError::invalid_params(format!("missing param `{key}`"))),
    }
}

fn integer(params: &mut Map<String, Value>, key: &str) -> Result<Option<i64>, RpcError> {
    match params.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => value
            .as_i64()
            .map(Some)
            .ok_or_else(|| RpcError::invalid_params(format!("{key} must be an integer"))),
    }
}

/// The rest of the params as the `/v1` request body.
fn body<T: DeserializeOwned>(params: Map<String, Value>) -> Result<T, RpcError> {
    serde_json::from_value(Value::Object(params))
        .map_err(|e| RpcError::invalid_params(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The advertised method set. Changing it is a contract change: update
    /// this list, the README's table and the SDKs together.
    #[test]
    fn advertised_methods_are_pinned() {
        assert_eq!(
            all_methods(),
            [
                "healthz",
                "capabilities",
                "shutdown",
                "thread/capabilities",
                "thread/create",
                "thread/list",
                "thread/read",
                "thread/start",
                "thread/steer",
                "thread/interrupt",
                "thread/set_name",
                "thread/archive",
                "thread/unarchive",
                "thread/approve",
                "thread/answer",
                "thread/subscribe",
                "thread/unsubscribe",
                "app/capabilities",
                "app/models",
                "app/config/get",
                "prompt/capabilities",
                "prompt/run",
            ]
        );
        let families: Vec<_> = FAMILIES.iter().map(|(name, _)| *name).collect();
        assert_eq!(families, ["control", "thread", "app", "prompt"]);
        for (family, methods) in FAMILIES.iter().skip(1) {
            assert!(methods.iter().all(|m| m.starts_with(&format!("{family}/"))));
        }
    }
}
