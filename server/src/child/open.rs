//! The OS opener for the sign-in link, started with the scrubbed
//! environment (the `open` crate's own launch would hand it the server's,
//! runtime token included).

use super::env;
use std::{
    io,
    os::unix::process::CommandExt,
    process::{Child, Command, ExitStatus, Stdio},
    time::{Duration, Instant},
};

/// A launcher that fails within this long (no desktop, no handler) lets
/// the next one try; one still running has handed the link on.
const FAILURE_WINDOW: Duration = Duration::from_millis(250);

/// Opens `url` off the async runtime. A missing or failing opener only
/// means the user opens the printed link themselves.
pub fn browser(url: String) {
    std::thread::spawn(move || {
        if let Err(error) = launch(open::commands(&url)) {
            tracing::warn!(%error, "could not open a browser; open the printed link yourself");
        }
    });
}

/// Tries each launcher in turn; waits for the one that worked, so it is
/// reaped.
fn launch(commands: Vec<Command>) -> io::Result<()> {
    let mut last = io::Error::new(io::ErrorKind::NotFound, "no opener for this system");
    for mut command in commands {
        env::apply(&mut command);
        command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Its own group: a Ctrl+C meant for the server does not reach it.
            .process_group(0);
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(error) => {
                last = error;
                continue;
            }
        };
        match early_exit(&mut child) {
            Some(Ok(status)) if !status.success() => {
                last = io::Error::other(format!("{:?} failed: {status}", command.get_program()));
            }
            Some(Err(error)) => return Err(error),
            _ => {
                let _ = child.wait();
                return Ok(());
            }
        }
    }
    Err(last)
}

/// The child's exit status if it ends within `FAILURE_WINDOW`.
fn early_exit(child: &mut Child) -> Option<io::Result<ExitStatus>> {
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(Ok(status)),
            Ok(None) if start.elapsed() >= FAILURE_WINDOW => return None,
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(error) => return Some(Err(error)),
        }
    }
}
