#!/usr/bin/env bash
# Runs fuzz targets one after another for a fixed budget each and logs to
# $LOGDIR/<target>.log (+ .meta with the command, the commit and the figures).
# Usage: fuzz/run-all.sh [target...]   (default: every target)
# Env: SECS per target (default 600), LOGDIR (default /tmp/fuzz-runs),
#      MAX_LEN (default 2048: hostile sizes are covered by benches/linear.py).
# Needs a nightly toolchain and cargo-fuzz; run fuzz/seed.sh first.
set -u
cd "$(dirname "$0")"
SECS=${SECS:-600}
LOGDIR=${LOGDIR:-/tmp/fuzz-runs}
MAX_LEN=${MAX_LEN:-2048}
mkdir -p "$LOGDIR"
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(markdown env shell deploy human extract catalog)
# No sanitizer: knobs is safe Rust; what is looked for is a panic, an abort,
# a hang (-timeout) or runaway memory (-rss_limit_mb).
run=(cargo +nightly fuzz run -O -s none)
for t in "${targets[@]}"; do
  dict=dict/$t.dict
  [ -f "$dict" ] || dict=dict/markdown.dict
  meta=$LOGDIR/$t.meta
  args=(-dict="$dict" -max_len="$MAX_LEN" -max_total_time="$SECS" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1)
  {
    echo "target=$t head=$(git -C .. rev-parse --short HEAD)"
    echo "cmd=${run[*]} $t -- ${args[*]}"
    echo "corpus_before=$(ls "corpus/$t" | wc -l) start=$(date -u +%FT%TZ)"
  } > "$meta"
  s=$(date +%s)
  "${run[@]}" "$t" -- "${args[@]}" > "$LOGDIR/$t.log" 2>&1
  rc=$?
  {
    echo "end=$(date -u +%FT%TZ) wall_s=$(( $(date +%s) - s )) rc=$rc"
    grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$LOGDIR/$t.log"
    echo "corpus_after=$(ls "corpus/$t" | wc -l)"
    echo "artifacts=$(ls "artifacts/$t" 2>/dev/null | tr '\n' ' ')"
  } >> "$meta"
done
