use serde::{Deserialize, Serialize};

/// What the signed-in workbench shows about the running process.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Workbench {
    pub codewhale_version: String,
    pub bind_address: String,
    pub workspace: String,
    /// True when phones may pair (`--mobile`): the workbench offers
    /// "Pair a phone" and the devices panel, and `/mobile` is served.
    #[serde(default)]
    pub mobile: bool,
}

/// Answer to the connection check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Ping {
    pub server_time_ms: u64,
}
