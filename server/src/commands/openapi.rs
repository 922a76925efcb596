//! `codewhale openapi [--output FILE]`: the document of this exact build,
//! with no server running (the same text `GET /v1/openapi.json` serves).

use crate::{cli::OpenapiArgs, error::RunError, http::openapi};
use std::io::Write;

pub fn run(args: OpenapiArgs) -> Result<(), RunError> {
    let document = openapi::document_json();
    match args.output {
        Some(path) => std::fs::write(&path, document)
            .map_err(|e| RunError::Config(format!("cannot write {}: {e}", path.display()))),
        None => {
            let mut stdout = std::io::stdout().lock();
            match stdout
                .write_all(document.as_bytes())
                .and_then(|()| stdout.flush())
            {
                // `codewhale openapi | head` is not a failure.
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    Err(RunError::Config(format!("cannot write the document: {e}")))
                }
                _ => Ok(()),
            }
        }
    }
}
