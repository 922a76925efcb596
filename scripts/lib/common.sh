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
