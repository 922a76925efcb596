//! `wasm-split INPUT.wasm OUT_DIR NAME`: splits a wasm module linked with
//! `--emit-relocs` at its `#[wasm_split]` points. Writes `OUT_DIR/NAME_split.wasm`
//! (the main module, for wasm-bindgen), one `.wasm` per chunk, the loader
//! `__wasm_split.______________________.js` the chunks are fetched through, and
//! `__wasm_split_manifest.json`: for each split, the chunks it needs
//! (scripts/bench-bundle reads it; the loader fetches them by itself).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The import module `wasm_split_helpers` links against; it must be this
/// exact string (Leptos' `HydrationScripts` loads the same file).
const LINK_NAME: &str = "./__wasm_split.______________________.js";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, out_dir, name] = args.as_slice() else {
        eprintln!("usage: wasm-split INPUT.wasm OUT_DIR NAME");
        return ExitCode::from(2);
    };
    match split(Path::new(input), Path::new(out_dir), name) {
        Ok(chunks) => {
            println!("{chunks} chunks");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("wasm-split: {error:?}");
            ExitCode::FAILURE
        }
    }
}

fn split(input: &Path, out_dir: &Path, name: &str) -> Result<usize, Box<dyn std::error::Error>> {
    let wasm = std::fs::read(input).map_err(|e| format!("{}: {e}", input.display()))?;
    let main_out: PathBuf = out_dir.join(format!("{name}_split.wasm"));
    // The chunks call `initSync` of wasm-bindgen's glue for the main module.
    let main_module = format!("./{name}.js");
    let mut options = wasm_split_cli_support::Options::new(&wasm);
    options.output_dir = out_dir;
    options.main_out_path = &main_out;
    options.link_name = LINK_NAME;
    options.main_module = &main_module;
    options.target.web();
    let split = wasm_split_cli_support::transform(options)?;
    let manifest = serde_json::to_string(&split.prefetch_map)?;
    std::fs::write(out_dir.join("__wasm_split_manifest.json"), manifest)?;
    Ok(split.split_modules.len())
}
