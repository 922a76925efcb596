//! JSON-RPC 2.0 messages: what a line may hold, the error codes, and the
//! replies. The spec's rules (an id is a string, a number or null; a
//! notification gets no reply; a batch is answered as an array) live here.

use crate::runtime::error::RuntimeError;
use serde_json::{json, Map, Value};

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;
/// A runtime operation refused: `data.kind` says why (not_found, conflict…),
/// `data.status` is the HTTP status `/v1` answers with for the same refusal.
pub const RUNTIME_ERROR: i64 = -32000;

/// A request as sent: `id` is `None` for a notification.
#[derive(Debug)]
pub struct Call {
    pub id: Option<Value>,
    pub method: String,
    pub params: Map<String, Value>,
}

/// An error reply's body.
#[derive(Debug, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(INVALID_PARAMS, message)
    }
}

impl From<RuntimeError> for RpcError {
    fn from(error: RuntimeError) -> Self {
        if let Some(detail) = error.internal_detail() {
            tracing::error!(%detail, "a JSON-RPC call failed");
        }
        let kind = error.kind();
        let mut data = json!({ "kind": kind, "status": kind.status() });
        if let RuntimeError::Conflicts { paths, .. } = &error {
            data["conflicts"] = json!(paths);
        }
        let code = match kind {
            protocol::ErrorKind::Invalid => INVALID_PARAMS,
            _ => RUNTIME_ERROR,
        };
        Self {
            code,
            message: error.to_string(),
            data: Some(data),
        }
    }
}

/// Reads one request object. `Err` carries the id to answer with (null when
/// the request is too broken to have one) and the error.
pub fn call(value: Value) -> Result<Call, Box<(Value, RpcError)>> {
    let Value::Object(mut object) = value else {
        return Err(Box::new((
            Value::Null,
            RpcError::new(INVALID_REQUEST, "a request must be a JSON object"),
        )));
    };
    let id = match object.remove("id") {
        None => None,
        Some(id @ (Value::String(_) | Value::Number(_) | Value::Null)) => Some(id),
        Some(_) => {
            return Err(Box::new((
                Value::Null,
                RpcError::new(INVALID_REQUEST, "id must be a string, a number or null"),
            )))
        }
    };
    let answer_to = id.clone().unwrap_or(Value::Null);
    let invalid = |message: &str| {
        Err(Box::new((
            answer_to.clone(),
            RpcError::new(INVALID_REQUEST, message),
        )))
    };
    if object.get("jsonrpc") != Some(&Value::String("2.0".into())) {
        return invalid("jsonrpc must be \"2.0\"");
    }
    let method = match object.remove("method") {
        Some(Value::String(method)) => method,
        _ => return invalid("method must be a string"),
    };
    let params = match object.remove("params") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(params)) => params,
        Some(_) => {
            return Err(Box::new((
                answer_to,
                RpcError::invalid_params("params must be an object (named parameters)"),
            )))
        }
    };
    Ok(Call { id, method, params })
}

pub fn success(id: Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

pub fn failure(id: Value, error: RpcError) -> Value {
    let mut body = json!({ "code": error.code, "message": error.message });
    if let Some(data) = error.data {
        body["data"] = data;
    }
    json!({ "jsonrpc": "2.0", "id": id, "error": body })
}

pub fn notification(method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "method": method, "params": params })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_checked_like_the_spec_says() {
        let ok = call(json!({"jsonrpc":"2.0","id":7,"method":"healthz"})).unwrap();
        assert_eq!(ok.id, Some(json!(7)));
        assert!(ok.params.is_empty());
        let note = call(json!({"jsonrpc":"2.0","method":"x","params":{"a":1}})).unwrap();
        assert_eq!(note.id, None);
        assert_eq!(note.params["a"], 1);

        let refused = |value: Value| *call(value).unwrap_err();
        assert_eq!(refused(json!([1])).1.code, INVALID_REQUEST);
        assert_eq!(
            refused(json!({"id":1,"method":"x"})),
            (
                json!(1),
                RpcError::new(INVALID_REQUEST, "jsonrpc must be \"2.0\"")
            )
        );
        assert_eq!(
            refused(json!({"jsonrpc":"2.0","id":{},"method":"x"})).0,
            Value::Null
        );
        assert_eq!(
            refused(json!({"jsonrpc":"2.0","id":"a","method":3})).1.code,
            INVALID_REQUEST
        );
        assert_eq!(
            refused(json!({"jsonrpc":"2.0","id":"a","method":"x","params":[1]}))
                .1
                .code,
            INVALID_PARAMS
        );
    }
}
