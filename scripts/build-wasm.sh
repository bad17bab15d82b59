#!/usr/bin/env bash
# Builds the engine for the browser playground (`wasm/`), shrunk by binaryen's wasm-opt
# (a pinned version from npm, so Node and npm are needed), into the module the binary
# carries, src/site/defaults/retrylab.wasm, and writes beside it the manifest of what it
# was built from, src/site/defaults/retrylab.wasm.manifest: the workspace sources the
# build read (from cargo's dep-info), each with the SHA-256 of its text (CRLF read as
# LF), the other files of their folders, the registry crates compiled into it, and the
# compiler. `cargo test` recomputes the hashes and fails when an engine source changed
# since, so run this script after a change to the engine and commit both files.
#
#   bash scripts/build-wasm.sh           build, then write the module and the manifest
#   bash scripts/build-wasm.sh --check   build, then require the committed module to be
#                                        byte-identical (same compiler) and its manifest
#                                        to be current; writes nothing
#
# The build is reproducible: workspace paths are relative and the registry's location
# is remapped, so a clone anywhere, by anyone, with the same compiler gives the same bytes.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=write
case "${1:-}" in
  "") ;;
  --check) mode=check ;;
  *) echo "usage: bash scripts/build-wasm.sh [--check]" >&2; exit 2 ;;
esac

module=src/site/defaults/retrylab.wasm
manifest=src/site/defaults/retrylab.wasm.manifest
target=wasm32-unknown-unknown

if ! rustup target list --installed 2>/dev/null | grep -qx $target; then
  rustup target add $target
fi

# The registry's path ends up in panic locations; remapped, it is the same on every
# machine. CARGO_ENCODED_RUSTFLAGS also keeps a user's own RUSTFLAGS out of the module.
# The profile's opt-level "z" inlines almost nothing, which leaves small functions (an
# index, a random draw, a ceiling) as calls in the engine's hottest loop; LLVM's inline
# threshold of 25 instead of "z"'s 5 makes the metastable crowd about a quarter faster
# for some 4 KB (at "s", the whole module would be 45 KB larger). Measured over the
# thresholds 12, 16, 20, 25, 30 and 50 (the metastable preset in Node: 164, 156, 155,
# 157, 157 and 152 ms; gzipped 181,259, 181,846, 181,846, 181,416, 181,863 and 187,637
# bytes), 25 is within 2% of 16 and 20 and 430 bytes smaller; 12 is 5% slower for 157
# bytes less, and 50, the fastest, is past the budget.
inline_threshold=25
cargo_home=${CARGO_HOME:-$HOME/.cargo}
export CARGO_ENCODED_RUSTFLAGS="--remap-path-prefix=$cargo_home=/cargo"$'\x1f'"-Cllvm-args=-inline-threshold=$inline_threshold"
cargo build --locked --profile wasm --target $target -p retrylab-wasm

# Binaryen's wasm-opt, pinned, from npm (its package runs under Node), shrinks what
# rustc wrote: the module carries the site's own results table and must stay within
# its 300 KB budget. Installed once into target/, like the rest of the build.
binaryen_version=132.0.0
wasm_opt=target/binaryen-$binaryen_version/node_modules/binaryen/bin/wasm-opt
if [ ! -x "$wasm_opt" ]; then
  npm install --no-save --no-audit --no-fund --silent \
    --prefix "target/binaryen-$binaryen_version" "binaryen@$binaryen_version" >&2
fi
rustc_output=target/$target/wasm/retrylab_wasm.wasm
built=target/$target/wasm/retrylab_wasm.opt.wasm
# The features rustc's wasm32 target turns on, which wasm-opt must accept.
"$wasm_opt" -Os --enable-bulk-memory --enable-sign-ext --enable-mutable-globals \
  --enable-nontrapping-float-to-int --enable-multivalue --enable-reference-types \
  "$rustc_output" -o "$built"

sha() {
  if command -v sha256sum >/dev/null; then sha256sum; else shasum -a 256; fi | cut -d' ' -f1
}
# A source's text with CRLF line ends read as LF, as the test reads it.
cr=$(printf '\r')
text_of() { sed "s/$cr\$//" "$1"; }

# The manifest: every workspace file the build read, relative to the root and sorted.
here=$(pwd -P)
sources=$(sed -n '1s/^[^:]*: *//p' "${rustc_output%.wasm}.d" | tr ' ' '\n' | sed -n "s|^$here/||p" | LC_ALL=C sort)
if [ -z "$sources" ]; then
  echo "error: cargo's dep-info ${rustc_output%.wasm}.d lists no source of the module" >&2
  exit 1
fi
new_manifest=$(
  echo "# What retrylab.wasm was built from, written by scripts/build-wasm.sh; do not edit."
  echo "# The test playground_module checks it: run the script after a change to the engine."
  echo "module $(sha < "$built") $(wc -c < "$built" | tr -d ' ')"
  echo "compiler $(rustc --version)"
  echo "optimizer rustc inline threshold $inline_threshold, wasm-opt -Os, binaryen $binaryen_version"
  for file in $sources; do
    echo "source $(text_of "$file" | sha) $file"
  done
  # The other files of those folders: a file new there, not yet read, fails the test.
  for dir in $(printf '%s\n' $sources | sed 's|/[^/]*$||' | LC_ALL=C sort -u); do
    find "$dir" -maxdepth 1 -type f | LC_ALL=C sort
  done | grep -vxF "$sources" | sed 's/^/unread /'
  cargo tree --locked -p retrylab-wasm --target $target -e normal,build --prefix none --format '{p}' \
    | grep -v '(/' | sed 's/ (.*//; s/ v/ /' | LC_ALL=C sort -u | sed 's/^/crate /'
)

size=$(wc -c < "$built" | tr -d ' ')
gzipped=$(gzip -9c "$built" | wc -c | tr -d ' ')
if [ $mode = write ]; then
  cp "$built" "$module"
  printf '%s\n' "$new_manifest" > "$manifest"
  echo "$module: $size bytes ($gzipped gzipped); $manifest: $(echo "$sources" | wc -l | tr -d ' ') sources"
  # Earlier versions of this script put the module into static/, where it would now
  # stand in for the one the binary carries.
  if [ -f static/retrylab.wasm ]; then
    rm static/retrylab.wasm
    echo "removed static/retrylab.wasm: the binary carries the module now"
  fi
  exit 0
fi

# --check
status=0
committed_rustc=$(sed -n "s/^compiler //p" "$manifest")
# The sources and crates must match whatever the compiler; the module's own line only
# with the same compiler, where the bytes are compared too.
inputs() { grep -E '^(source|unread|crate) '; }
if [ "$(printf '%s\n' "$new_manifest" | inputs)" != "$(tr -d '\r' < "$manifest" | inputs)" ]; then
  echo "error: $manifest is not what this build reads; run bash scripts/build-wasm.sh and commit the result:" >&2
  diff <(tr -d '\r' < "$manifest" | inputs) <(printf '%s\n' "$new_manifest" | inputs) >&2 || true
  status=1
fi
if [ "$committed_rustc" != "$(rustc --version)" ]; then
  echo "note: the committed module was built with $committed_rustc, this build with $(rustc --version): bytes not compared"
elif cmp -s "$built" "$module"; then
  echo "$module is byte-identical to a fresh build: $size bytes ($gzipped gzipped)"
else
  echo "error: $module differs from a fresh build with the same compiler; run bash scripts/build-wasm.sh and commit the result" >&2
  status=1
fi
exit $status
