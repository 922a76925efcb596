//! A `codewhale` server as a child process: started, its first stdout line
//! (the URL it listens on) read, killed when dropped.

use std::{
    io::{BufRead, BufReader},
    process::{Child, Command},
};

pub struct Server {
    pub child: Child,
    pub base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Spawns `command` (stdout piped) and waits for the URL it prints first.
pub fn start(mut command: Command) -> Server {
    let mut child = command.spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.starts_with("http://127.0.0.1:"), "{line:?}");
    Server {
        child,
        base: line.trim().to_string(),
    }
}
