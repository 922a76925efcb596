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
            stdout
                .write_all(document.as_bytes())
                .and_then(|()| stdout.flush())
                .map_err(|e| RunError::Config(format!("cannot write the document: {e}")))
        }
    }
}
