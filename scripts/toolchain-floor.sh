#!/usr/bin/env bash
# Checks that `rust-version` in Cargo.toml is the true toolchain floor: that release
# builds the library and the binary, and the release before it cannot build the library.
# Installs both toolchains with rustup (minimal profile); builds in target/floor.
set -euo pipefail
cd "$(dirname "$0")/.."

floor=$(sed -n 's/^rust-version = "\([0-9]*\.[0-9]*\)"$/\1/p' Cargo.toml)
if [ -z "$floor" ]; then
  echo "error: Cargo.toml has no rust-version of the form \"1.N\""
  exit 1
fi
before="1.$(( ${floor#1.} - 1 ))"
export CARGO_TARGET_DIR=target/floor

for toolchain in "$floor" "$before"; do
  rustup toolchain install "$toolchain" --profile minimal >/dev/null 2>&1 || {
    echo "error: rustup cannot install Rust $toolchain"
    exit 1
  }
done

echo "Rust $floor, the declared floor, must build the library and the binary:"
cargo "+$floor" check --locked --quiet --lib --bins
echo "   it does"

echo "Rust $before, the release before it, must not build the library:"
if cargo "+$before" check --locked --quiet --lib --ignore-rust-version >/dev/null 2>&1; then
  echo "error: Rust $before builds the library too; lower rust-version in Cargo.toml to the oldest release that builds it"
  exit 1
fi
echo "   it does not, so rust-version = \"$floor\" is the true floor"
