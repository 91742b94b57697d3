#!/usr/bin/env bash
# Lints real runbooks that live outside this repository and expects no
# finding: the false-alarm check on work nobody here wrote.
#
#   scripts/corpus.sh [DIR]     (default: ../shared/corpus beside the checkout)
#
# Not part of the README's test command: a fresh clone has no ../shared.
# .ci/run calls it when the folder is there.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-../shared/corpus}
if [ ! -d "$dir" ]; then
  echo "corpus.sh: $dir is not a folder" >&2
  exit 2
fi
# The debug build: `cargo test` has just built it in CI, and two runbooks do
# not need an optimised binary (a release build would add minutes to CI).
cargo build --locked -q
knobs=$(bash scripts/target-dir.sh)/debug/knobs
files=$(find "$dir" -name '*.md' | wc -l)
set +e
out=$("$knobs" lint "$dir" --format short)
code=$?
set -e
if [ "$code" -ne 0 ] || [ -n "$out" ]; then
  echo "corpus.sh: $dir should lint clean; exit $code" >&2
  printf '%s\n' "$out" >&2
  exit 1
fi
echo "corpus.sh: $files runbooks in $dir lint clean"
