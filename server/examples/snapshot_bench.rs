//! Snapshot benchmark: `./scripts/bench-snapshots` (or `cargo run
//! --release -p codewhale --example snapshot_bench`). A 10,000-file
//! workspace (100 directories of 100 files, ~1 KiB each) in a temp dir,
//! snapshotted through the runtime's own `Snapshots` (real side
//! repository, real store): the first snapshot, then ten more with ten
//! files changed before each. Prints a Markdown table for BENCHMARKS.md.

#![allow(clippy::print_stdout)] // the report is its output

use codewhale::{
    runtime::snapshots::{Owner, Snapshots},
    store::Store,
};
use protocol::SnapshotKind;
use std::{sync::Arc, time::Instant};

const DIRS: usize = 100;
const FILES_PER_DIR: usize = 100;
const LATER_SNAPSHOTS: usize = 10;
const TARGET_MS: f64 = 300.0;

#[tokio::main]
async fn main() {
    let home = tempfile::tempdir().expect("a temp home");
    let workspace = tempfile::tempdir().expect("a temp workspace");
    let line = "x".repeat(60);
    for d in 0..DIRS {
        let dir = workspace.path().join(format!("dir{d:03}"));
        std::fs::create_dir(&dir).expect("mkdir");
        for f in 0..FILES_PER_DIR {
            let body = format!("{d}/{f}\n{}\n", [line.as_str(); 16].join("\n"));
            std::fs::write(dir.join(format!("file{f:03}.txt")), body).expect("write");
        }
    }
    let store = Arc::new(Store::open(home.path()).await.expect("the store"));
    let snapshots = Snapshots::new(store, home.path());
    let owner = || Owner {
        thread_id: "thr_bench",
        turn_id: None,
    };
    let started = Instant::now();
    snapshots
        .record(workspace.path(), owner(), SnapshotKind::PreTurn)
        .await
        .expect("the first snapshot");
    let first = started.elapsed().as_secs_f64() * 1000.0;
    let mut later = Vec::new();
    for round in 0..LATER_SNAPSHOTS {
        for f in 0..10 {
            let path = workspace
                .path()
                .join(format!("dir{:03}/file{f:03}.txt", round * 7 % DIRS));
            std::fs::write(path, format!("changed in round {round}\n")).expect("edit");
        }
        let started = Instant::now();
        snapshots
            .record(workspace.path(), owner(), SnapshotKind::PostTurn)
            .await
            .expect("a snapshot");
        later.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    later.sort_by(f64::total_cmp);
    let median = later[later.len() / 2];
    let slowest = later[later.len() - 1];
    println!("| metric | target | measured | met |");
    println!("|---|---|---|---|");
    println!(
        "| first snapshot, {} files | — | {first:.0} ms | — |",
        DIRS * FILES_PER_DIR
    );
    println!(
        "| later snapshot (10 files changed), median of {LATER_SNAPSHOTS} | < {TARGET_MS:.0} ms | {median:.0} ms (fastest {:.0}, slowest {slowest:.0}) | {} |",
        later[0],
        if slowest < TARGET_MS { "yes" } else { "**no**" }
    );
}
