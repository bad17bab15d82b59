#!/usr/bin/env bash
# Fuzzes each target for a bounded time, seeded with this repository's own pages and
# scenarios and with the inputs kept in seeds/TARGET/; a crash stops with the input saved
# under fuzz/artifacts/TARGET/.
#
#   fuzz/run.sh [SECONDS] [TARGET...]     (default: 60 s each for scenario, directives, page)
#
# Needs the nightly toolchain (`rustup toolchain install nightly`); installs cargo-fuzz
# if it is missing. Reproduce a crash with `cargo +nightly fuzz run TARGET FILE`.
set -euo pipefail
cd "$(dirname "$0")"

seconds=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(scenario directives page)
fi

if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --version 0.13.2 --locked
fi

for target in "${targets[@]}"; do
  case $target in
    scenario) seeds=(../scenarios) ;;
    *) seeds=(../content ../tests/fixtures/good/content ../tests/fixtures/bad/content) ;;
  esac
  # Inputs that once broke the tool, kept so that none comes back.
  if [ -d "seeds/$target" ]; then
    seeds+=("seeds/$target")
  fi
  mkdir -p "corpus/$target"
  echo "== fuzzing $target for ${seconds} s"
  # The seed folders are read, never written: new inputs go to corpus/TARGET.
  cargo +nightly fuzz run "$target" "corpus/$target" "${seeds[@]}" -- \
    -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -print_final_stats=1
done
