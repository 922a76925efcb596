//! Answers to what a turn waits on (approvals, questions, client tool
//! calls) and what the runtime replies when it has settled one.

use serde::{Deserialize, Deserializer, Serialize};

/// A client's answer to an approval request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ApprovalDecision {
    Allow,
    Deny,
}

impl ApprovalDecision {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Deny => "deny",
        }
    }
}

/// Read by hand so that a wrong value says what the right ones are.
impl<'de> Deserialize<'de> for ApprovalDecision {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = String::deserialize(deserializer)?;
        match value.as_str() {
            "allow" => Ok(Self::Allow),
            "deny" => Ok(Self::Deny),
            other => Err(serde::de::Error::custom(format!(
                "decision must be \"allow\" or \"deny\" (got {other:?})"
            ))),
        }
    }
}

/// Body of `POST /v1/approvals/{approval_id}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct DecideApproval {
    pub decision: ApprovalDecision,
    /// With `allow`: approve this thread's later requests too.
    #[serde(default)]
    pub remember: bool,
}

/// Reply to a decision. `delivered`: the waiting turn received it (false
/// if the turn had already moved on).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ApprovalDecided {
    pub ok: bool,
    pub approval_id: String,
    pub decision: ApprovalDecision,
    pub delivered: bool,
}

/// Reply to `POST /v1/user-input/{thread_id}/{input_id}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UserInputAnswered {
    pub ok: bool,
    pub input_id: String,
    pub delivered: bool,
}

/// Reply (202) to a client tool's result: durably accepted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ToolResultAccepted {
    pub accepted: bool,
    pub call_id: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions_round_trip_and_refuse_other_words() {
        for decision in [ApprovalDecision::Allow, ApprovalDecision::Deny] {
            let json = serde_json::to_string(&decision).unwrap();
            assert_eq!(json, format!("\"{}\"", decision.as_str()));
            assert_eq!(
                serde_json::from_str::<ApprovalDecision>(&json).unwrap(),
                decision
            );
        }
        let error = serde_json::from_str::<DecideApproval>(r#"{"decision":"maybe"}"#)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("decision must be \"allow\" or \"deny\""),
            "{error}"
        );
    }
}
