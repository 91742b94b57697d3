#!/usr/bin/env bash
# The knobs hook through the real pre-commit framework: `pre-commit try-repo`
# builds this repository's hook (language: rust) and runs it in a throwaway
# repository. Run by .ci/run; needs git, cargo and pip.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
command -v pre-commit >/dev/null 2>&1 || python3 -m pip install -q --disable-pip-version-check 'pre-commit>=3,<5'

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PRE_COMMIT_HOME="$work/cache" NO_COLOR=1
# pre-commit builds the hook with `cargo install` (release): optimising it
# only slows CI down, and the test is about the integration.
export CARGO_PROFILE_RELEASE_OPT_LEVEL=0 CARGO_PROFILE_RELEASE_LTO=false
# Each `try-repo` clones the hook repository into a new temporary store and
# builds it again; one target folder shared by the four builds means the
# dependencies are compiled once, not four times (CI's time budget).
export CARGO_TARGET_DIR="$work/target"
git init -q -b main "$work/repo"
cd "$work/repo"
git config user.email ops@example.invalid
git config user.name Ops
printf '# Arm\n\nSet `--checkpoint-policy floor` and redeploy.\n' > bad.md
printf 'CHECKPOINT_POLICE=tip-only\nBUSY_PREFILL_CHUNK=automatic\n' > knobs.env
printf '# Arm\n\nSet `--checkpoint-policy tip-only` and redeploy.\n' > good.md
printf 'int main(void) { return 0; }\n' > main.c
git add .

passed=0 failed=0
check() { # name, expected status (0 pass / 1 fail), grep pattern, files...
  local name=$1 want=$2 pattern=$3; shift 3
  local status=0
  pre-commit try-repo "$root" knobs --files "$@" > out.txt 2>&1 || status=$?
  if { [ "$want" = 0 ] && [ "$status" = 0 ]; } || { [ "$want" = 1 ] && [ "$status" != 0 ]; }; then
    if grep -q -- "$pattern" out.txt; then passed=$((passed + 1)); echo "ok: $name"; return; fi
  fi
  failed=$((failed + 1)); echo "FAILED: $name (status $status)"; cat out.txt
}
check "a bad runbook is refused" 1 "KNB002 invented-member" bad.md
check "a bad env file is refused" 1 "KNB003 bad-value" knobs.env
check "a good runbook passes" 0 "knobs" good.md
check "other files are not the hook's" 0 "(no files to check)Skipped" main.c

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
