#!/usr/bin/env bash
# The benchmark's set-up and run: installs ripgrep and GNU time (Debian
# packages) when they are missing, then runs benches/bench.py with the
# arguments given (see its --help). Never part of the tests.
#
#   benches/run.sh                       # the figures in docs/performance.md
#   benches/run.sh --sizes 1000,5000,10000,20000 --llama LLAMA_GIT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
command -v rg >/dev/null || need+=(ripgrep)
[ -x /usr/bin/time ] || need+=(time)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq "${need[@]}"
fi
exec python3 benches/bench.py "$@"
