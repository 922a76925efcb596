//! Session files: `$CODEWHALE_HOME/sessions/<id>.json`, one per session,
//! each written whole to a temporary file and renamed into place (mode
//! 0600: they hold conversations). Names are checked before any path is
//! made, links are never followed, and a file over the size limit or not a
//! session is skipped by a listing and refused by a read.

use nix::libc;
use protocol::{SessionDetail, SessionMetadata};
use serde::de::IgnoredAny;
use std::{
    collections::HashMap,
    fs::{self, OpenOptions},
    io::{self, Read, Write},
    os::unix::fs::OpenOptionsExt,
    path::{Path, PathBuf},
    sync::{LazyLock, Mutex},
    time::SystemTime,
};

pub const DIR: &str = "sessions";
pub const PREFIX: &str = "ses_";
/// Session ids: the prefix and 16 to 64 letters, digits, `_` or `-`.
pub const ID_PATTERN: &str = "^ses_[A-Za-z0-9_-]{16,64}$";
/// A session file's size limit.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;
/// Files a listing reads at most (the newest by modification time).
const MAX_SCANNED: usize = 2000;

pub fn valid_id(id: &str) -> bool {
    id.strip_prefix(PREFIX).is_some_and(|rest| {
        (16..=64).contains(&rest.len())
            && rest
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    })
}

#[derive(Clone)]
pub struct SessionFiles {
    dir: PathBuf,
}

/// Why a session could not be read or written.
#[derive(Debug)]
pub enum FileError {
    NotFound,
    /// There, but not a session codewhale can read (too large, a link, not
    /// JSON of the right shape).
    Unreadable(String),
    Io(io::Error),
}

impl From<io::Error> for FileError {
    fn from(error: io::Error) -> Self {
        if error.kind() == io::ErrorKind::NotFound {
            FileError::NotFound
        } else {
            FileError::Io(error)
        }
    }
}

/// Metadata already read, by file, with the modification time and size it
/// was read at: a listing reads only files that changed.
type Known = HashMap<PathBuf, (SystemTime, u64, SessionMetadata)>;
static METADATA: LazyLock<Mutex<Known>> = LazyLock::new(Default::default);

/// Only the metadata, the rest skipped unread into memory.
#[derive(serde::Deserialize)]
struct MetadataOnly {
    metadata: SessionMetadata,
    #[serde(default)]
    #[allow(dead_code)]
    messages: IgnoredAny,
}

impl SessionFiles {
    pub fn new(home: &Path) -> Self {
        Self {
            dir: home.join(DIR),
        }
    }

    fn path(&self, id: &str) -> PathBuf {
        debug_assert!(valid_id(id));
        self.dir.join(format!("{id}.json"))
    }

    /// The bytes of a session file: not a link, a regular file, bounded.
    fn bytes(&self, path: &Path) -> Result<Vec<u8>, FileError> {
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(path)
            .map_err(|e| match e.raw_os_error() {
                Some(libc::ELOOP) => FileError::Unreadable("the session file is a link".into()),
                _ => FileError::from(e),
            })?;
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(FileError::Unreadable("not a regular file".into()));
        }
        if meta.len() > MAX_FILE_BYTES {
            return Err(FileError::Unreadable(format!(
                "the session file is over {} MiB",
                MAX_FILE_BYTES / (1024 * 1024)
            )));
        }
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    pub fn read(&self, id: &str) -> Result<SessionDetail, FileError> {
        let bytes = self.bytes(&self.path(id))?;
        let detail: SessionDetail = serde_json::from_slice(&bytes)
            .map_err(|e| FileError::Unreadable(format!("not a session: {e}")))?;
        if detail.metadata.id != id {
            return Err(FileError::Unreadable(
                "the file names another session".into(),
            ));
        }
        Ok(detail)
    }

    /// Every readable session's metadata (unreadable files are logged and
    /// skipped), newest first.
    pub fn list(&self) -> Result<Vec<SessionMetadata>, FileError> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(FileError::Io(e)),
        };
        let mut files: Vec<(SystemTime, String)> = entries
            .filter_map(Result::ok)
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                let id = name.strip_suffix(".json")?.to_string();
                let modified = entry.metadata().ok()?.modified().ok()?;
                valid_id(&id).then_some((modified, id))
            })
            .collect();
        files.sort_by_key(|file| std::cmp::Reverse(file.0));
        files.truncate(MAX_SCANNED);
        let mut known = METADATA.lock().unwrap_or_else(|p| p.into_inner());
        // Forget this folder's files that are gone.
        known.retain(|path, _| {
            path.parent() != Some(self.dir.as_path())
                || files.iter().any(|(_, id)| *path == self.path(id))
        });
        let mut sessions = Vec::new();
        for (modified, id) in files {
            let path = self.path(&id);
            let size = fs::symlink_metadata(&path).map_or(0, |m| m.len());
            if let Some((at, bytes, metadata)) = known.get(&path) {
                if *at == modified && *bytes == size {
                    sessions.push(metadata.clone());
                    continue;
                }
            }
            let read = self.bytes(&path).and_then(|bytes| {
                serde_json::from_slice::<MetadataOnly>(&bytes)
                    .map_err(|e| FileError::Unreadable(e.to_string()))
            });
            match read {
                Ok(only) if only.metadata.id == id => {
                    known.insert(path, (modified, size, only.metadata.clone()));
                    sessions.push(only.metadata);
                }
                Ok(_) => {
                    tracing::warn!(session = %id, "a session file names another session; skipped")
                }
                Err(error) => {
                    tracing::warn!(session = %id, ?error, "a session file cannot be read; skipped")
                }
            }
        }
        drop(known);
        sessions.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then(b.id.cmp(&a.id)));
        Ok(sessions)
    }

    /// Writes the session whole: a temporary file renamed over the old one.
    pub fn write(&self, detail: &SessionDetail) -> Result<(), FileError> {
        let id = &detail.metadata.id;
        if !valid_id(id) {
            return Err(FileError::Unreadable(format!("{id:?} is not a session id")));
        }
        let text = serde_json::to_vec_pretty(detail).map_err(io::Error::other)?;
        if text.len() as u64 > MAX_FILE_BYTES {
            return Err(FileError::Unreadable(format!(
                "the session would be over {} MiB",
                MAX_FILE_BYTES / (1024 * 1024)
            )));
        }
        fs::create_dir_all(&self.dir)?;
        let temporary = self
            .dir
            .join(format!(".{id}.{}.tmp", crate::random::random_secret("", 8)));
        let written = OpenOptions::new()
            .create_new(true)
            .write(true)
            .mode(0o600)
            .open(&temporary)
            .and_then(|mut file| file.write_all(&text).and_then(|()| file.sync_all()))
            .and_then(|()| fs::rename(&temporary, self.path(id)));
        if written.is_err() {
            let _ = fs::remove_file(&temporary);
        }
        Ok(written?)
    }

    pub fn delete(&self, id: &str) -> Result<(), FileError> {
        Ok(fs::remove_file(self.path(id))?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::{SessionContent, SessionMessage};

    fn session(id: &str, updated_at: i64) -> SessionDetail {
        SessionDetail {
            metadata: SessionMetadata {
                id: id.into(),
                name: "n".into(),
                title: "t".into(),
                created_at: 1,
                updated_at,
                message_count: 1,
                workspace: None,
                model: None,
                source_thread_id: None,
            },
            messages: vec![SessionMessage {
                role: "user".into(),
                content: vec![SessionContent {
                    kind: "text".into(),
                    text: "hi".into(),
                }],
            }],
            system_prompt: String::new(),
        }
    }

    #[test]
    fn sessions_round_trip_and_bad_files_are_skipped() {
        let home = tempfile::tempdir().unwrap();
        let files = SessionFiles::new(home.path());
        let (a, b) = ("ses_aaaaaaaaaaaaaaaa", "ses_bbbbbbbbbbbbbbbb");
        files.write(&session(a, 5)).unwrap();
        files.write(&session(b, 9)).unwrap();
        assert_eq!(files.read(a).unwrap(), session(a, 5));
        let dir = home.path().join(DIR);
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(dir.join(format!("{a}.json")))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        // Not sessions: garbage, a link to a secret, a file naming another.
        fs::write(dir.join("ses_cccccccccccccccc.json"), "{nope").unwrap();
        fs::write(home.path().join("secret.json"), "{}").unwrap();
        std::os::unix::fs::symlink(
            home.path().join("secret.json"),
            dir.join("ses_dddddddddddddddd.json"),
        )
        .unwrap();
        let mut other = session("ses_eeeeeeeeeeeeeeee", 1);
        other.metadata.id = a.into();
        fs::write(
            dir.join("ses_eeeeeeeeeeeeeeee.json"),
            serde_json::to_vec(&other).unwrap(),
        )
        .unwrap();
        let listed: Vec<String> = files.list().unwrap().into_iter().map(|m| m.id).collect();
        assert_eq!(listed, vec![b.to_string(), a.to_string()]);
        assert!(matches!(
            files.read("ses_dddddddddddddddd"),
            Err(FileError::Unreadable(_))
        ));
        files.delete(a).unwrap();
        assert!(matches!(files.read(a), Err(FileError::NotFound)));
        assert!(!valid_id("ses_../../etc/passwd"));
        assert!(!valid_id("thr_aaaaaaaaaaaaaaaa"));
    }
}
