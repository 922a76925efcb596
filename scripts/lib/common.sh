# Shared helpers for scripts/*. Sourced, not executed.

# Each step says when it starts, in minutes since the first step of this
# run, so a slow CI log shows where the time went.
: "${CODEWHALE_STEP_EPOCH:=$(date +%s)}"
export CODEWHALE_STEP_EPOCH
step() {
  local elapsed=$(( $(date +%s) - CODEWHALE_STEP_EPOCH ))
  printf '\n==> %s  [%d:%02d]\n' "$*" $((elapsed / 60)) $((elapsed % 60)) >&2
}

as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

# The wasm-bindgen version pinned in Cargo.lock (the CLI must match it).
wasm_bindgen_version() {
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock
}

export PATH="$HOME/.cargo/bin:$PATH"

# What scripts/build produced, as a browser receives it (br): the bundle
# every page loads, and the chunks the lazy routes fetch.
summarize_site() {
  local pkg=$1 name=$2
  local main js chunks count
  main=$(stat -c %s "$pkg/${name}_bg.wasm.br")
  # The glue imports the chunks' loader up front: both load on every page.
  js=$(cat "$pkg/$name.js.br" "$pkg"/__wasm_split.*.js.br | wc -c)
  count=$(find "$pkg" -name '*.wasm' ! -name "${name}_bg.wasm" | wc -l)
  chunks=$(find "$pkg" -name '*.wasm.br' ! -name "${name}_bg.wasm.br" -printf '%s\n' | awk '{s+=$1} END {print s+0}')
  printf 'every page: %s B wasm + %s B JS (br); lazy routes: %s chunks, %s B (br) together\n' \
    "$main" "$js" "$count" "$chunks"
}

# The digest of codewhale-wasm-split's sources: scripts/setup stamps the
# installed tool with it, scripts/build refuses a tool of other sources.
wasm_split_digest() {
  cat scripts/wasm-split/Cargo.toml scripts/wasm-split/Cargo.lock scripts/wasm-split/src/*.rs | sha256sum | cut -d' ' -f1
}

# Besides the sources (the site digest), what a linted wasm build was linted
# with: clippy.toml and clippy's version. target/wasm/LINTED holds all three.
wasm_lint_inputs() {
  printf '%s %s' "$(sha256sum clippy.toml | cut -d' ' -f1)" "$(/usr/bin/clippy-driver --version 2>/dev/null)"
}
