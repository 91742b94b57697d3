#!/usr/bin/env bash
# Lint throughput: `knobs lint` over a generated corpus (copies of the
# realistic fixture tree), against a baseline that only reads the same files
# (`grep` for the metric prefixes), in the same run. Prints figures; asserts
# nothing. Usage: benches/lint.sh [COPIES] (default 300).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
copies=${1:-300}
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
knobs="$root/target/release/knobs"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for i in $(seq 1 "$copies"); do cp -r "$root/fixtures/lint/clean" "$work/tree-$i"; done
files=$(find "$work" -type f | wc -l)
bytes=$(du -sb "$work" | cut -f1)

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_ms() { # runs "$@" 5 times, prints the median wall time in ms
  for _ in 1 2 3 4 5; do
    s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N)
    echo $(( (e - s) / 1000000 ))
  done | median
}
cd "$work"
base=$(time_ms grep -rE 'radiance|vllm:' .)
lint=$(time_ms "$knobs" lint -q .)
single=$(time_ms "$knobs" lint -q "tree-1/runbooks/arm-decoder-dial.md")
version=$(time_ms "$knobs" --version)
echo "corpus: $files files, $bytes bytes ($copies copies of fixtures/lint/clean)"
echo "grep baseline:  ${base} ms"
echo "knobs lint:     ${lint} ms  ($(( files * 1000 / (lint > 0 ? lint : 1) )) files/s, $(( lint / (base > 0 ? base : 1) ))x the baseline)"
echo "one runbook:    ${single} ms (start-up included)"
echo "knobs --version: ${version} ms (start-up alone)"
