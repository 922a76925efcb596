#!/usr/bin/env bash
# Prints the digest of the browser bundle's sources. Must match
# server/build.rs `source_digest`: sha256 over "sha256sum" lines of every
# input file, sorted by path bytes.
set -euo pipefail
cd "$(dirname "$0")/../.."
find Cargo.lock Cargo.toml .cargo vendor/tachys vendor/serde_json protocol app frontend style assets scripts/build scripts/lib scripts/wasm-split/Cargo.toml scripts/wasm-split/Cargo.lock scripts/wasm-split/src -type f -print \
  | LC_ALL=C sort \
  | while IFS= read -r f; do sha256sum "$f"; done \
  | sha256sum | cut -d' ' -f1
