#!/usr/bin/env bash
# Seeds each fuzz target's corpus from the repository's own fixtures (the
# corpus folders are not committed). Usage: fuzz/seed.sh
set -euo pipefail
cd "$(dirname "$0")"
root=..
seed() { # target, files...
  local t=$1; shift
  mkdir -p "corpus/$t"
  for f in "$@"; do
    [ -f "$f" ] || continue
    cp "$f" "corpus/$t/$(sha1sum "$f" | cut -c1-16)"
  done
}
mapfile -t md < <(find "$root/fixtures" "$root/docs" -name '*.md' -size -64k)
seed markdown "${md[@]}"
seed human "${md[@]}"
mapfile -t envs < <(find "$root/fixtures" -name '*.env' -o -name '*.env.*' -o -name 'env' -type f)
seed env "${envs[@]}"
mapfile -t sh < <(find "$root/fixtures" -name '*.sh' -type f)
seed shell "${sh[@]}"
mapfile -t cpp < <(find "$root/fixtures" \( -name '*.cpp' -o -name '*.h' -o -name '*.hpp' \) -size -128k -type f)
seed extract "${cpp[@]}"
mapfile -t toml < <(find "$root/catalog" "$root/fixtures" -name 'v*.toml' -type f)
seed catalog "${toml[@]}"
# The deploy target's first byte picks the file's name (see deploy.rs).
mkdir -p corpus/deploy
i=0
while IFS= read -r f; do
  case "$f" in
    *.service|*.conf) b=0 ;;
    *.container) b=1 ;;
    *Dockerfile|*Containerfile) b=2 ;;
    *compose*.y*ml) b=3 ;;
    *values.yaml) b=4 ;;
    *rules.yaml) b=6 ;;
    *) b=5 ;;
  esac
  { printf "\\$(printf '%03o' "$b")"; cat "$f"; } > "corpus/deploy/seed-$i"
  i=$((i + 1))
done < <(find "$root/fixtures/deploy" -type f ! -name '*.md' ! -name '*.txt')
for t in corpus/*; do echo "$t: $(ls "$t" | wc -l) seeds"; done
