//! `POST /v1/user-input/{thread_id}/{input_id}`: answers to the model's
//! questions. The answers go to the running turn and nowhere else.

use crate::http::{
    error::ApiError,
    extract::{Json, Path},
    state::AppState,
};
use axum::extract::State;
use protocol::{AnswerUserInput, ErrorEnvelope, UserInputAnswered};
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(answer))
}

/// Answers a `user_input.required`. The answers reach the model and are
/// never stored.
#[utoipa::path(post, path = "/v1/user-input/{thread_id}/{input_id}", tag = "user-input", operation_id = "answerUserInput",
    params(("thread_id" = String, Path, description = "Thread id"), ("input_id" = String, Path, description = "From `user_input.required`")),
    request_body = AnswerUserInput,
    responses(
        (status = 200, description = "Delivered", body = UserInputAnswered),
        (status = 404, description = "No such pending question in this thread", body = ErrorEnvelope),
        (status = 409, description = "The answers do not fit the questions asked: one names no question, a question is unanswered, has more than one answer without `multi_select`, or an answer is not one of its options without `allow_free_text`", body = ErrorEnvelope),
        (status = 413, description = "The answers (values and labels together) exceed 64 KiB, or the body 16 MiB", body = ErrorEnvelope)))]
async fn answer(
    State(state): State<AppState>,
    Path((thread_id, input_id)): Path<(String, String)>,
    Json(body): Json<AnswerUserInput>,
) -> Result<axum::Json<UserInputAnswered>, ApiError> {
    let answered = state
        .runtime
        .answer_user_input(&thread_id, &input_id, body)
        .await?;
    Ok(axum::Json(answered))
}
