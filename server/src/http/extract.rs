//! Extractors whose rejections use the API's JSON error envelope.

use crate::http::error::ApiError;
use axum::{
    body::{Body, Bytes},
    extract::{rejection::JsonRejection, FromRequest, FromRequestParts, Request},
};
use serde::de::DeserializeOwned;

/// A JSON request body. Every body of this API is an object: serde alone
/// would also read a struct from an array (`[null, null]` as a
/// `CreatePairing`), which the document does not admit.
pub struct Json<T>(pub T);

impl<T, S> FromRequest<S> for Json<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        let (parts, body) = request.into_parts();
        // Read once (within the body limit), then let axum check the
        // content type and parse, as before.
        let bytes = Bytes::from_request(Request::from_parts(parts.clone(), body), state)
            .await
            .map_err(|e| ApiError::from(JsonRejection::from(e)))?;
        let object = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
        let request = Request::from_parts(parts, Body::from(bytes));
        let axum::Json(value) = axum::Json::<T>::from_request(request, state).await?;
        if !object {
            return Err(ApiError::bad_request("the JSON body must be an object"));
        }
        Ok(Json(value))
    }
}

#[derive(FromRequestParts)]
#[from_request(via(axum::extract::Query), rejection(ApiError))]
pub struct Query<T>(pub T);

#[derive(FromRequestParts)]
#[from_request(via(axum::extract::Path), rejection(ApiError))]
pub struct Path<T>(pub T);
