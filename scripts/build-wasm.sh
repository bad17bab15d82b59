#!/usr/bin/env bash
# Builds the engine for the browser playground and puts it where the site build picks it
# up: static/retrylab.wasm (copied into the site as it is). Run it before
# `cargo run --release -- build` whenever the engine changes.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi
cargo build --locked --profile wasm --target wasm32-unknown-unknown -p retrylab-wasm
mkdir -p static
cp target/wasm32-unknown-unknown/wasm/retrylab_wasm.wasm static/retrylab.wasm
echo "static/retrylab.wasm: $(wc -c < static/retrylab.wasm | tr -d ' ') bytes"
