#!/usr/bin/env bash
# Measures knobs on the real-world corpus (fixtures/real-world, see
# docs/real-world.md): builds the debug binary and runs scripts/real-world.py.
#
#   scripts/real-world.sh [LLAMA_GIT_DIR] [-- real-world.py options]
#
# The llama.cpp half is judged at the tag its knobs.toml pins. Its catalogue
# is not committed (nothing generated from llama.cpp is): give a local clone
# of llama.cpp (bare or not, with release tags; or set LLAMA_GIT_DIR) and it
# is synced once into the target folder, then reused. Without a clone and
# without an earlier sync, only the radiance half is scored and the report
# says so. No network is used. The script exits 0 whatever the figures are.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=${LLAMA_GIT_DIR:-}
if [ $# -gt 0 ] && [ "$1" != "--" ]; then repo=$1; shift; fi
[ "${1:-}" = "--" ] && shift

cargo build --locked -q
target=$(bash scripts/target-dir.sh)
knobs=$target/debug/knobs
tag=$(python3 -c 'import tomllib; print(tomllib.load(open("fixtures/real-world/llama.cpp/knobs.toml", "rb"))["pin"]["tag"])')
cat_dir=$target/real-world/catalog

if [ -n "$repo" ] && [ ! -f "$cat_dir/llama.cpp/$tag.toml" ]; then
  mkdir -p "$target/real-world"
  repo=$(cd "$repo" && pwd)
  (cd "$target/real-world" && KNOBS_CACHE_DIR="$target/real-world/cache" "$knobs" sync --engine llama.cpp --repo "$repo" --tag "$tag" --out catalog) >&2
fi
if [ -f "$cat_dir/llama.cpp/$tag.toml" ]; then
  exec python3 scripts/real-world.py "$knobs" --catalog-dir "$cat_dir" "$@"
fi
exec python3 scripts/real-world.py "$knobs" "$@"
