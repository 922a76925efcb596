//! The workspace as the API shows it: directory listings, file contents,
//! git status and the diff of a thread's workspace against HEAD.

use serde::{Deserialize, Serialize};

/// Query of the thread-bound `browse` and `file` routes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::ToSchema, utoipa::IntoParams),
    into_params(parameter_in = Query)
)]
#[serde(deny_unknown_fields)]
pub struct WorkspacePathQuery {
    /// Relative to the workspace; the workspace itself when absent.
    pub path: Option<String>,
}

/// Query of the composer's `GET /v1/workspace/browse` and `/file`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::ToSchema, utoipa::IntoParams),
    into_params(parameter_in = Query)
)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceQuery {
    /// A directory the runtime knows: its default workspace or the
    /// workspace of a thread.
    pub workspace: String,
    /// Relative to the workspace; the workspace itself when absent.
    pub path: Option<String>,
}

/// Query of `GET /v1/workspace/status`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::ToSchema, utoipa::IntoParams),
    into_params(parameter_in = Query)
)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceStatusQuery {
    /// The runtime's default workspace when absent.
    pub workspace: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    File,
    Dir,
    /// Listed, never followed: its target is not told.
    Symlink,
    /// A FIFO, socket or device.
    Other,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct WorkspaceEntry {
    pub name: String,
    /// Relative to the workspace.
    pub path: String,
    pub kind: EntryKind,
    /// Bytes, for files.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub size: Option<u64>,
}

/// `GET …/workspace/browse`: directories first, then by name; entries
/// ignored by git (and `.git` itself) are left out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct WorkspaceListing {
    /// The workspace's absolute path.
    pub workspace: String,
    /// The directory listed, relative to the workspace (`.` for itself).
    pub path: String,
    pub entries: Vec<WorkspaceEntry>,
    /// More entries than the listing limit: some were left out.
    pub truncated: bool,
}

/// `GET …/workspace/file`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct WorkspaceFile {
    pub workspace: String,
    /// Relative to the workspace (a link inside is shown as its target).
    pub path: String,
    /// The text; null for a binary file.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub content: Option<String>,
    /// The whole file's size in bytes.
    pub size: u64,
    /// Only the first part of the file is in `content`.
    pub truncated: bool,
    /// A NUL byte in the first 8 KiB, or not UTF-8: no content is sent.
    pub binary: bool,
    /// From the extension (`rust`, `typescript`…).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub language_hint: Option<String>,
}

/// How many paths are in each state, as `git status` counts them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StatusCounts {
    /// Changed in the index.
    pub staged: u32,
    /// Changed in the work tree and not staged.
    pub unstaged: u32,
    /// Untracked entries (a new directory counts once).
    pub untracked: u32,
    /// Unmerged.
    pub conflicted: u32,
}

/// `GET /v1/workspace/status`. Outside a git repository `is_git` is false
/// and every git field is null.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct WorkspaceStatus {
    pub workspace: String,
    pub is_git: bool,
    /// Null when detached.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub branch: Option<String>,
    /// The full commit id; null before the first commit.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub head: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub dirty: Option<bool>,
    /// `origin/main`…; null without one.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub upstream: Option<String>,
    /// Commits ahead of the upstream; null without one.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub ahead: Option<u32>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub behind: Option<u32>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub counts: Option<StatusCounts>,
}

/// How a file differs from HEAD.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum DiffFileStatus {
    Added,
    Modified,
    Deleted,
    Renamed,
    Copied,
    /// A file became a link, or the reverse.
    TypeChanged,
    Conflicted,
    Untracked,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum DiffLineKind {
    Context,
    Add,
    Delete,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DiffLine {
    pub kind: DiffLineKind,
    /// 1-based; null for an added line.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub old_line: Option<u32>,
    /// 1-based; null for a deleted line.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub new_line: Option<u32>,
    /// Without its line ending.
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DiffHunk {
    pub old_start: u32,
    pub old_lines: u32,
    pub new_start: u32,
    pub new_lines: u32,
    /// `@@ -old_start,old_lines +new_start,new_lines @@`
    pub header: String,
    pub lines: Vec<DiffLine>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DiffFile {
    /// Relative to the workspace; the new path of a rename.
    pub path: String,
    /// The path in HEAD of a renamed or copied file.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub old_path: Option<String>,
    pub status: DiffFileStatus,
    /// Binary on either side: no lines are sent.
    pub binary: bool,
    /// A symbolic link on either side: its target is never read, so no
    /// hunks. (Submodules and untracked nested repositories have none
    /// either.)
    pub symlink: bool,
    /// Hunks or lines were left out (the file's own limits or the
    /// diff's byte budget), or a side was too large to read.
    pub truncated: bool,
    pub hunks: Vec<DiffHunk>,
}

/// The bounds a diff is cut to; a cut sets `truncated`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DiffLimits {
    pub max_files: u32,
    pub max_hunks_per_file: u32,
    pub max_lines_per_file: u32,
    /// The most bytes of line text in the whole diff.
    pub max_total_bytes: u64,
    /// A side larger than this is not read (the file is `truncated`).
    pub max_file_bytes: u64,
}

/// `GET /v1/threads/{id}/workspace/diff`: the work tree (tracked and
/// untracked files) against HEAD.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct WorkspaceDiff {
    pub workspace: String,
    /// The commit compared against; null before the first commit
    /// (then every file is added).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub head: Option<String>,
    pub files: Vec<DiffFile>,
    /// Something was left out: files beyond `max_files`, or a file's hunks
    /// or lines (that file is marked too).
    pub truncated: bool,
    pub limits: DiffLimits,
}
