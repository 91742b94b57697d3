#!/usr/bin/env bash
# Prints the folder cargo builds into: ./target unless CARGO_TARGET_DIR or a
# cargo config's build.target-dir moves it (CI runners and developer machines
# often do). The scripts run the binary from there, never from ./target.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo metadata --locked --no-deps --format-version 1 |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])'
