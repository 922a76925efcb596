//! Server functions of the skills page. The runtime holds every rule (what
//! a skill is, what an import may hold, the toggles' lock); these only
//! carry the calls, for the default workspace's skills and the user's own.

use crate::error::ServiceError;
use crate::protocol::{SkillRecord, SkillSource};
use leptos::prelude::*;

#[cfg(feature = "ssr")]
use crate::service::service as runtime;

#[server(prefix = "/api", endpoint = "skills", output = crate::api::Json)]
pub async fn load_skills() -> Result<Vec<SkillRecord>, ServiceError> {
    runtime()?.skills().await
}

#[server(prefix = "/api", endpoint = "toggle_skill", output = crate::api::Json)]
pub async fn toggle_skill(name: String, enabled: bool) -> Result<(), ServiceError> {
    let patch = crate::protocol::PatchSkill {
        enabled,
        workspace: None,
    };
    runtime()?.patch_skill(name, patch).await.map(|_| ())
}

/// Imports from a path on the server's machine; answers the skill's name.
#[server(prefix = "/api", endpoint = "import_skill", output = crate::api::Json)]
pub async fn import_skill(
    path: String,
    source: SkillSource,
    replace: bool,
) -> Result<String, ServiceError> {
    let request = crate::protocol::ImportSkill {
        path: path.trim().to_string(),
        source,
        workspace: None,
        replace,
    };
    runtime()?
        .import_skill(request)
        .await
        .map(|skill| skill.name)
}
