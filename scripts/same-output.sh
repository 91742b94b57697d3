#!/usr/bin/env bash
# Compares what two knobs binaries print, byte for byte: every fixture folder
# and a generated 3,000-file vault, linted in every format (json, sarif,
# short, human, github), with stdout, stderr and the exit status of each run;
# and explain, flags, rules and catalog show for each built-in engine.
#
#     scripts/same-output.sh BASE_KNOBS NEW_KNOBS [WORK_DIR]
#
# Exit 0 when every output is identical; otherwise the first differences.
# Used for changes that must not change behaviour (a restructuring).
set -euo pipefail
cd "$(dirname "$0")/.."
base=$(realpath "$1")
new=$(realpath "$2")
work=${3:-$(mktemp -d)}
mkdir -p "$work"
[ -d "$work/vault" ] || python3 benches/vault.py 3000 "$work/vault" >/dev/null
targets=()
for d in fixtures/*/ fixtures/*/*/; do targets+=("${d%/}"); done
targets+=("$work/vault")
run() { # label, then the command's arguments
  local label=$1; shift
  for bin in base new; do
    local exe=$base; [ $bin = new ] && exe=$new
    local out="$work/$bin/$label"
    mkdir -p "$(dirname "$out")"
    set +e
    NO_COLOR=1 "$exe" "$@" >"$out.out" 2>"$out.err" </dev/null
    echo $? >"$out.rc"
    set -e
  done
}
n=0
for t in "${targets[@]}"; do
  key=$(echo "$t" | sed 's#^/##; s#/#_#g')
  for f in json sarif short human github; do
    run "lint/$key.$f" lint --format "$f" "$t"; n=$((n + 1))
  done
done
for engine in radiance llama.cpp vllm; do
  run "flags/$engine" flags --engine "$engine"
  run "rules/$engine" rules --engine "$engine"
  run "catalog/$engine" catalog show --engine "$engine"
  n=$((n + 3))
done
for subject in --busy-prefill-chunk --checkpoint-policy --prefill-interleave radiance:engine_steps_total KNB001 KNB007 RADIANCE_LOG_LEVEL; do
  run "explain/radiance$subject" explain -- "$subject"; n=$((n + 1))
done
for subject in --flash-attn --ctx-size LLAMA_ARG_CTX_SIZE; do
  run "explain/llama$subject" explain --engine llama.cpp -- "$subject"
  run "explain/llama-history$subject" explain --engine llama.cpp --history -- "$subject"; n=$((n + 2))
done
for subject in --max-model-len --tokenizer-mode VLLM_ATTENTION_BACKEND; do
  run "explain/vllm$subject" explain --engine vllm -- "$subject"; n=$((n + 1))
done
if diff -r "$work/base" "$work/new" >"$work/diff.txt"; then
  echo "same: $n runs, every stdout, stderr and exit status identical ($work)"
else
  echo "DIFFERENT ($work/diff.txt):"
  head -60 "$work/diff.txt"
  exit 1
fi
