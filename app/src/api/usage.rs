//! The usage page's one server function: tokens and cost of a range of days
//! (UTC, today included), as day buckets and as breakdowns by model and by
//! thread. The runtime builds it (`Runtime::usage_overview`); the page draws it.

use crate::error::ServiceError;
use leptos::prelude::*;

pub use crate::protocol::{ThreadUsage, UsageOverview};

/// The ranges the page offers, in days.
pub const USAGE_RANGES: [u32; 3] = [7, 30, 90];
/// The range when the URL names none (or one the page does not offer).
pub const DEFAULT_USAGE_DAYS: u32 = 30;

/// The last `days` days up to now.
#[server(prefix = "/api", endpoint = "usage", output = crate::api::Json)]
pub async fn load_usage(days: u32) -> Result<UsageOverview, ServiceError> {
    crate::service::service()?.usage_overview(days).await
}
