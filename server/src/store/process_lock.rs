//! Which processes use a store. Every codewhale process that opens one holds
//! a shared lock on `<home>/store.lock` for as long as its runtime lives.
//! At open it first tries the lock exclusively: granted means no other
//! process is alive, so turns left `in_progress` are truly abandoned and may
//! be recovered. Otherwise another process (a `codewhale web` while an
//! editor starts `codewhale acp`) may be running them, and recovery waits
//! for a start with the store to itself.

use super::StoreError;
use std::{
    fs::{File, OpenOptions, TryLockError},
    path::Path,
};

pub const LOCK_FILE: &str = "store.lock";

pub struct ProcessLock {
    file: File,
    alone: bool,
}

impl ProcessLock {
    /// Takes the lock: exclusive if no other process holds it (until
    /// `share`), else shared.
    pub fn acquire(home: &Path) -> Result<Self, StoreError> {
        let path = home.join(LOCK_FILE);
        let failed = |source: std::io::Error| StoreError::Lock {
            path: path.display().to_string(),
            source,
        };
        std::fs::create_dir_all(home).map_err(failed)?;
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .map_err(failed)?;
        let alone = match file.try_lock() {
            Ok(()) => true,
            Err(TryLockError::WouldBlock) => false,
            Err(TryLockError::Error(source)) => return Err(failed(source)),
        };
        if !alone {
            file.lock_shared().map_err(failed)?;
        }
        Ok(Self { file, alone })
    }

    /// True when no other process had the store open at `acquire`.
    pub fn alone(&self) -> bool {
        self.alone
    }

    /// Lets other processes in (after recovery).
    pub fn share(&mut self) -> Result<(), StoreError> {
        if self.alone {
            self.file.lock_shared().map_err(|source| StoreError::Lock {
                path: LOCK_FILE.into(),
                source,
            })?;
        }
        Ok(())
    }
}
