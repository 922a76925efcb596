//! The encoding of every server function's reply: JSON, decoded from text.
//!
//! server_fn's own `Json` decodes replies with `serde_json::from_slice`,
//! while resources hydrate with `from_str`. Each reader is its own copy of
//! every record's `Deserialize` in the wasm bundle (~200 KB before
//! wasm-opt); decoding replies from text too keeps one copy.

use leptos::server_fn::codec::Post;
use leptos::server_fn::{Bytes, ContentType, Decodes, Encodes, Format, FormatType};
use serde::{de::DeserializeOwned, Serialize};

/// JSON on the wire, exactly as server_fn's `JsonEncoding` writes it.
pub struct JsonText;

impl ContentType for JsonText {
    const CONTENT_TYPE: &'static str = "application/json";
}

impl FormatType for JsonText {
    const FORMAT_TYPE: Format = Format::Text;
}

impl<T: Serialize> Encodes<T> for JsonText {
    type Error = serde_json::Error;

    fn encode(output: &T) -> Result<Bytes, Self::Error> {
        serde_json::to_vec(output).map(Bytes::from)
    }
}

impl<T: DeserializeOwned> Decodes<T> for JsonText {
    type Error = serde_json::Error;

    fn decode(bytes: Bytes) -> Result<T, Self::Error> {
        from_text(&bytes)
    }
}

/// A server function's reply: a `POST` answered with JSON.
pub type Json = Post<JsonText>;

/// Reads JSON through the one reader the bundle keeps (`StrRead`); bytes
/// that are not UTF-8 are not JSON either.
pub fn from_text<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, serde_json::Error> {
    let text = std::str::from_utf8(bytes)
        .map_err(|error| serde::de::Error::custom(format!("reply is not UTF-8: {error}")))?;
    serde_json::from_str(text)
}

/// A record inside an event's JSON payload. `serde_json::from_value` would
/// be a third copy of each record's `Deserialize`; payloads are small, so
/// writing the value back to text costs less than that copy weighs.
pub fn record<T: DeserializeOwned>(value: &serde_json::Value) -> Option<T> {
    serde_json::from_str(&value.to_string()).ok()
}
