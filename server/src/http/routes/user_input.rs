//! `POST /v1/user-input/{thread_id}/{input_id}`: answers to the model's
//! questions. The answers go to the running turn and nowhere else.

use crate::http::{
    error::ApiError,
    extract::{Json, Path},
    state::AppState,
};
use axum::{extract::State, routing::post, Router};
use protocol::{AnswerUserInput, UserInputAnswered};

pub fn router() -> Router<AppState> {
    Router::new().route("/v1/user-input/{thread_id}/{input_id}", post(answer))
}

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
