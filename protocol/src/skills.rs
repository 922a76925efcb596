//! Skills: folders holding a `SKILL.md` (front matter: name, description)
//! that the model may load on demand, from `$CODEWHALE_HOME/skills` and
//! the workspace's `.codewhale/skills`.

use serde::{Deserialize, Serialize};

/// Where a skill lives: the user's own (`$CODEWHALE_HOME/skills`) or the
/// workspace's (`.codewhale/skills`). A workspace skill of the same name
/// as a global one wins: the project knows best.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum SkillSource {
    #[default]
    Global,
    Workspace,
}

/// One skill as `GET /v1/skills` lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SkillRecord {
    pub name: String,
    pub description: String,
    pub source: SkillSource,
    /// Offered to the model. New skills are enabled; a toggle is kept for
    /// the name, whichever source holds it.
    pub enabled: bool,
    /// The skill's folder.
    pub path: String,
    /// The size of its `SKILL.md`.
    pub bytes: u64,
    /// Another skill of this name that this one hides (a global skill
    /// under a workspace one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shadows: Option<String>,
}

/// `GET /v1/skills` query.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::IntoParams),
    into_params(parameter_in = Query)
)]
#[serde(deny_unknown_fields)]
pub struct ListSkills {
    /// The workspace whose `.codewhale/skills` count too (default: the
    /// runtime's workspace).
    #[serde(default)]
    pub workspace: Option<String>,
}

/// `POST /v1/skills`: writes `<name>/SKILL.md` from its parts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CreateSkill {
    /// Lowercase letters, digits and hyphens, 64 at most.
    pub name: String,
    /// What the skill is for: the model reads it to decide when to load it.
    pub description: String,
    /// The instructions themselves (markdown).
    pub body: String,
    #[serde(default)]
    pub source: SkillSource,
    /// For a workspace skill: which workspace (default: the runtime's).
    #[serde(default)]
    pub workspace: Option<String>,
}

/// `POST /v1/skills/import`: copies a skill from a folder or an archive
/// (`.zip`, `.skill`, `.tar`, `.tar.gz`, `.tgz`) on this machine. Nothing in
/// it is run; links, paths leaving the folder and oversized contents are
/// refused.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ImportSkill {
    /// An absolute path on the machine codewhale runs on.
    pub path: String,
    #[serde(default)]
    pub source: SkillSource,
    #[serde(default)]
    pub workspace: Option<String>,
    /// Replace a skill of the same name in that place (default: refuse).
    #[serde(default)]
    pub replace: bool,
}

/// `PATCH /v1/skills/{name}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PatchSkill {
    pub enabled: bool,
    /// The workspace the skill was listed for (default: the runtime's).
    #[serde(default)]
    pub workspace: Option<String>,
}
