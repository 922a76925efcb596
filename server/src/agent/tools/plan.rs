//! update_plan: the model keeps a short step list; the latest one is in the
//! item's metadata for clients to render. Nothing is stored elsewhere: the
//! transcript is the record.

use super::{ToolError, ToolOutput};
use serde_json::{json, Value};

const MAX_STEPS: usize = 50;
const MAX_STEP_CHARS: usize = 1000;
const STATUSES: [&str; 3] = ["pending", "in_progress", "completed"];

pub fn update_plan(args: &Value) -> Result<ToolOutput, ToolError> {
    let explanation = match &args["explanation"] {
        Value::Null => None,
        Value::String(text) => Some(text.trim().to_string()).filter(|t| !t.is_empty()),
        _ => return Err(ToolError("explanation must be a string".into())),
    };
    let steps = args["plan"]
        .as_array()
        .ok_or_else(|| ToolError("missing array argument \"plan\"".into()))?;
    if steps.is_empty() {
        return Err(ToolError("plan must have at least one step".into()));
    }
    if steps.len() > MAX_STEPS {
        return Err(ToolError(format!(
            "plan has {} steps; keep it to {MAX_STEPS} or fewer",
            steps.len()
        )));
    }
    let plan = steps
        .iter()
        .enumerate()
        .map(|(i, step)| parse_step(i, step))
        .collect::<Result<Vec<_>, _>>()?;
    let in_progress: Vec<&(String, &str)> =
        plan.iter().filter(|(_, s)| *s == "in_progress").collect();
    if in_progress.len() > 1 {
        return Err(ToolError(format!(
            "{} steps are in_progress; at most one may be",
            in_progress.len()
        )));
    }
    let done = plan.iter().filter(|(_, s)| *s == "completed").count();
    let mut text = format!("Plan updated: {done}/{} completed", plan.len());
    if let Some((step, _)) = in_progress.first() {
        text.push_str(&format!("; in progress: {step}"));
    }
    let plan: Vec<Value> = plan
        .iter()
        .map(|(step, status)| json!({ "step": step, "status": status }))
        .collect();
    Ok(ToolOutput {
        text,
        metadata: json!({ "plan": plan, "explanation": explanation }),
    })
}

/// Step `i` (0-based) as (text, status).
fn parse_step(i: usize, step: &Value) -> Result<(String, &'static str), ToolError> {
    let n = i + 1;
    let text = step["step"]
        .as_str()
        .map(str::trim)
        .ok_or_else(|| ToolError(format!("step {n} needs a \"step\" string")))?;
    if text.is_empty() {
        return Err(ToolError(format!("step {n} is empty")));
    }
    if text.chars().count() > MAX_STEP_CHARS {
        return Err(ToolError(format!(
            "step {n} is longer than {MAX_STEP_CHARS} characters; keep steps short"
        )));
    }
    let status = step["status"].as_str().unwrap_or_default();
    let status = STATUSES.into_iter().find(|s| *s == status).ok_or_else(|| {
        ToolError(format!(
            "step {n} has status {}; use pending, in_progress or completed",
            step["status"]
        ))
    })?;
    Ok((text.to_string(), status))
}

/// "2/5 completed" for the transcript line, if the arguments read.
pub fn progress(args: &Value) -> Option<String> {
    let steps = args["plan"].as_array()?;
    let done = steps.iter().filter(|s| s["status"] == "completed").count();
    Some(format!("{done}/{} completed", steps.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(steps: &[(&str, &str)]) -> Value {
        let plan: Vec<Value> = steps
            .iter()
            .map(|(step, status)| json!({"step": step, "status": status}))
            .collect();
        json!({ "plan": plan })
    }

    fn refused(args: Value) -> String {
        update_plan(&args).unwrap_err().0
    }

    #[test]
    fn a_valid_plan_is_echoed_in_metadata() {
        let mut args = plan(&[
            ("Read the code", "completed"),
            (" Write the fix ", "in_progress"),
            ("Run the tests", "pending"),
        ]);
        args["explanation"] = json!("found the bug");
        let out = update_plan(&args).unwrap();
        assert_eq!(
            out.text,
            "Plan updated: 1/3 completed; in progress: Write the fix"
        );
        assert_eq!(out.metadata["explanation"], "found the bug");
        assert_eq!(
            out.metadata["plan"],
            json!([
                {"step": "Read the code", "status": "completed"},
                {"step": "Write the fix", "status": "in_progress"},
                {"step": "Run the tests", "status": "pending"},
            ])
        );
        let out = update_plan(&plan(&[("a", "pending")])).unwrap();
        assert_eq!(out.text, "Plan updated: 0/1 completed");
        assert_eq!(out.metadata["explanation"], Value::Null);
        assert_eq!(progress(&args).as_deref(), Some("1/3 completed"));
    }

    #[test]
    fn bad_plans_are_refused_with_reasons() {
        assert!(refused(json!({})).contains("\"plan\""));
        assert!(refused(plan(&[])).contains("at least one step"));
        assert_eq!(
            refused(plan(&[("a", "pending"), ("  ", "pending")])),
            "step 2 is empty"
        );
        let unknown = refused(plan(&[("a", "done")]));
        assert!(
            unknown.contains("\"done\"") && unknown.contains("in_progress"),
            "{unknown}"
        );
        assert!(refused(json!({"plan": [{"step": "a"}]})).contains("status null"));
        assert!(refused(json!({"plan": ["a"]})).contains("step 1 needs"));
        assert!(
            refused(plan(&[("a", "in_progress"), ("b", "in_progress")])).contains("at most one")
        );
        let many: Vec<(&str, &str)> = (0..51).map(|_| ("x", "pending")).collect();
        assert!(refused(plan(&many)).contains("51 steps"));
        let fifty: Vec<(&str, &str)> = (0..50).map(|_| ("x", "pending")).collect();
        assert!(update_plan(&plan(&fifty)).is_ok());
        let mut args = plan(&[("a", "pending")]);
        args["explanation"] = json!(3);
        assert!(refused(args).contains("explanation"));
    }
}
