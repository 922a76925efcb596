//! Wire types shared by the browser, the server and external `/v1` clients.

mod catalog;
mod error;
mod events;
mod interaction;
mod records;
mod requests;
mod runtime;
mod usage;
mod views;
mod workbench;

pub use catalog::ProviderModels;
pub use error::{clip_message, ErrorBody, ErrorEnvelope};
pub use events::{EventEnvelope, EVENT_SCHEMA_VERSION};
pub use interaction::{
    Answer, AnswerUserInput, DynamicToolCall, DynamicToolResult, DynamicToolSpec, Question,
    QuestionOption, ToolContent, UserInputRequest,
};
pub use records::{ItemKind, ThreadRecord, TurnItemRecord, TurnRecord, TurnStatus, Usage};
pub use requests::{CompactThread, CreateThread, PatchThread, StartTurn, SteerTurn};
pub use runtime::{Capabilities, Health, RuntimeInfo, RUNTIME_API_VERSION, SERVICE_NAME};
pub use usage::{UsageBucket, UsageReport, UsageTotals};
pub use views::{ThreadDetail, ThreadSummary, TurnStarted};
pub use workbench::{Ping, Workbench};
