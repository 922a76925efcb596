//! Which skills are switched off, in `$CODEWHALE_HOME/skills.json`, shared
//! by every codewhale process on that home. A toggle takes the lock file
//! (`skills.lock`, an OS file lock), reads the file as it is now, changes
//! only its own name and replaces the file atomically (a temporary file
//! renamed over it): two processes toggling different skills at once both
//! keep their change, and a reader never sees half a file. Reads take no
//! lock and no cache: each list reads the file, so another process's
//! toggle shows at once.

use std::{
    collections::BTreeMap,
    fs::{self, File, OpenOptions},
    io::{self, Write},
    path::{Path, PathBuf},
};

const STATE_FILE: &str = "skills.json";
const LOCK_FILE: &str = "skills.lock";

#[derive(Default, serde::Serialize, serde::Deserialize)]
struct State {
    /// By exact name; a name not here is enabled.
    #[serde(default)]
    enabled: BTreeMap<String, bool>,
}

pub struct Toggles {
    home: PathBuf,
}

impl Toggles {
    pub fn new(home: &Path) -> Self {
        Self {
            home: home.to_path_buf(),
        }
    }

    /// Every name with a toggle, as the file says now. An unreadable or
    /// damaged file counts as none switched off (logged): it must not stop
    /// turns from starting.
    pub fn read(&self) -> BTreeMap<String, bool> {
        match self.load() {
            Ok(state) => state.enabled,
            Err(error) => {
                tracing::warn!(%error, "cannot read the skill toggles; every skill counts as enabled");
                BTreeMap::new()
            }
        }
    }

    pub fn is_enabled(toggles: &BTreeMap<String, bool>, name: &str) -> bool {
        toggles.get(name).copied().unwrap_or(true)
    }

    /// Sets one name, merged into the latest state under the lock.
    /// Blocking: run it off the async threads.
    pub fn set(&self, name: &str, enabled: bool) -> io::Result<()> {
        fs::create_dir_all(&self.home)?;
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.home.join(LOCK_FILE))?;
        lock.lock()?;
        // A damaged file is not merged into (that would lose it silently):
        // the toggle fails and says so.
        let mut state = self.load()?;
        if enabled {
            // Enabled is the default: nothing to keep.
            state.enabled.remove(name);
        } else {
            state.enabled.insert(name.to_string(), false);
        }
        let result = self.replace(&state);
        drop(lock);
        result
    }

    fn load(&self) -> io::Result<State> {
        match fs::read(self.home.join(STATE_FILE)) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                io::Error::new(io::ErrorKind::InvalidData, format!("{STATE_FILE}: {e}"))
            }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(State::default()),
            Err(e) => Err(e),
        }
    }

    fn replace(&self, state: &State) -> io::Result<()> {
        let text = serde_json::to_vec_pretty(state).map_err(io::Error::other)?;
        let temporary = self.home.join(format!(
            ".{STATE_FILE}.{}",
            crate::random::random_secret("", 8)
        ));
        let written = File::create(&temporary)
            .and_then(|mut file| file.write_all(&text).and_then(|()| file.sync_all()))
            .and_then(|()| fs::rename(&temporary, self.home.join(STATE_FILE)));
        if written.is_err() {
            let _ = fs::remove_file(&temporary);
        }
        written
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toggles_merge_with_what_another_writer_left() {
        let home = tempfile::tempdir().unwrap();
        let one = Toggles::new(home.path());
        let other = Toggles::new(home.path());
        one.set("a", false).unwrap();
        other.set("b", false).unwrap();
        let now = one.read();
        assert_eq!(now.get("a"), Some(&false));
        assert_eq!(now.get("b"), Some(&false));
        one.set("a", true).unwrap();
        assert!(Toggles::is_enabled(&other.read(), "a"));
        assert!(!Toggles::is_enabled(&other.read(), "b"));
    }

    #[test]
    fn a_damaged_file_is_not_overwritten() {
        let home = tempfile::tempdir().unwrap();
        fs::write(home.path().join(STATE_FILE), "{not json").unwrap();
        let toggles = Toggles::new(home.path());
        assert!(toggles.read().is_empty());
        assert!(toggles.set("a", false).is_err());
        assert_eq!(
            fs::read_to_string(home.path().join(STATE_FILE)).unwrap(),
            "{not json"
        );
    }
}
