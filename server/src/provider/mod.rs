//! Model providers: configuration (built-in DeepSeek and OpenAI plus any
//! OpenAI-compatible endpoint from config.toml) and the streaming
//! `/chat/completions` client.

pub mod client;
pub mod registry;

pub use client::{install_tls, ChatClient, Delta, ProviderError};
pub use registry::{Providers, ResolvedProvider};
