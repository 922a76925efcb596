# Shared helpers for scripts/*. Sourced, not executed.

step() { printf '\n==> %s\n' "$*" >&2; }

as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

# The wasm-bindgen version pinned in Cargo.lock (the CLI must match it).
wasm_bindgen_version() {
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock
}

export PATH="$HOME/.cargo/bin:$PATH"
