//! The server embeds target/site (see src/assets.rs). This refuses to compile
//! against a site that is missing or was built from other sources, so a binary
//! with stale or absent browser assets cannot be produced.
//! scripts/build writes target/site/SOURCE_HASH with the same digest.

use sha2::{Digest, Sha256};
use std::{fs, path::Path, path::PathBuf};

/// The wasm bundle is built with Leptos' `erase_components` cfg; a server
/// built without it renders a tree the bundle cannot hydrate. The cfg comes
/// from .cargo/config.toml, which a RUSTFLAGS variable silently replaces.
fn require_erased_components() {
    println!("cargo:rerun-if-env-changed=RUSTFLAGS");
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let flags: Vec<&str> = flags.split('\x1f').collect();
    let erased = flags
        .windows(2)
        .any(|pair| pair[0] == "--cfg" && pair[1] == "erase_components")
        || flags.contains(&"--cfg=erase_components");
    if !erased {
        panic!(
            "\n\nthe server must be built with `--cfg erase_components`, like the browser \
             bundle (.cargo/config.toml sets it; a RUSTFLAGS variable replaces that: \
             add `--cfg erase_components` to it).\n\n"
        );
    }
}

/// Inputs of the browser bundle, relative to the workspace root.
const SITE_INPUTS: [&str; 15] = [
    "Cargo.lock",
    "Cargo.toml",
    ".cargo",
    // Patched dependencies: their sources, not vendor/'s notes.
    "vendor/tachys",
    "vendor/serde_json",
    "protocol",
    "app",
    "frontend",
    "style",
    "assets",
    // The recipe too: a change to how the bundle is built rebuilds it.
    "scripts/build",
    "scripts/lib",
    // The tool that cuts the bundle at its lazy routes (not its build output).
    "scripts/wasm-split/Cargo.toml",
    "scripts/wasm-split/Cargo.lock",
    "scripts/wasm-split/src",
];

fn main() {
    require_erased_components();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let site = root.join("target/site");
    println!("cargo:rerun-if-changed={}", site.display());
    for input in SITE_INPUTS {
        println!("cargo:rerun-if-changed={}", root.join(input).display());
    }
    let expected = source_digest(&root);
    let stamp = fs::read_to_string(site.join("SOURCE_HASH")).unwrap_or_default();
    if stamp.trim() != expected {
        panic!(
            "\n\nthe embedded browser bundle in target/site is {} \
             (sources digest {expected}).\nRun ./scripts/build (or ./scripts/build --site-only) first.\n\n",
            if stamp.is_empty() { "missing" } else { "stale" }
        );
    }
    // The bundle is served under /pkg/<this>/ (http/assets.rs): a page of
    // another build never fetches a lazy chunk of this one. A digest of
    // the built files, not of the sources: the same sources through another
    // toolchain make other modules.
    println!(
        "cargo:rustc-env=CODEWHALE_SITE_DIGEST={}",
        built_digest(&site.join("pkg"))
    );
}

/// sha256 over `sha256sum`-style lines ("<hex>  <path>\n") of every input
/// file, sorted by path bytes; identical to scripts/lib/site-digest.sh.
fn source_digest(root: &Path) -> String {
    listing_digest(root, &SITE_INPUTS)
}

/// The same over every file of the built bundle.
fn built_digest(pkg: &Path) -> String {
    listing_digest(pkg, &[""])
}

/// sha256 over "<hex>  <path>\n" lines of every file under `inputs`
/// (relative to `root`), sorted by path bytes.
fn listing_digest(root: &Path, inputs: &[&str]) -> String {
    let mut files = Vec::new();
    for input in inputs {
        collect(root, &root.join(input), &mut files);
    }
    files.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    let mut listing = String::new();
    for rel in files {
        let bytes = fs::read(root.join(&rel)).unwrap_or_default();
        listing.push_str(&format!("{}  {rel}\n", hex::encode(Sha256::digest(&bytes))));
    }
    hex::encode(Sha256::digest(listing.as_bytes()))
}

fn collect(root: &Path, path: &PathBuf, files: &mut Vec<String>) {
    if path.is_dir() {
        let Ok(entries) = fs::read_dir(path) else {
            return;
        };
        for entry in entries.flatten() {
            collect(root, &entry.path(), files);
        }
    } else if path.is_file() {
        if let Ok(rel) = path.strip_prefix(root) {
            files.push(rel.to_string_lossy().into_owned());
        }
    }
}
