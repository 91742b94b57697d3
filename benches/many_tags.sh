#!/bin/sh
# Time of `knobs sync --all-tags` against the number of tags (issue 29).
#
#     benches/many_tags.sh KNOBS [BASELINE]
#
# Builds bare repositories of 2,000, 8,000 and 20,000 lightweight tags on one
# commit of fixtures/history/v1.0.0, and syncs each over file:// twice with
# each binary in the same run: first into an empty cache and no history, then
# again (every tag held: the history is extended by nothing). Prints wall time
# and peak RSS from /usr/bin/time; nothing is asserted.
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for n in 2000 8000 20000; do
    d=$work/r$n.git
    git init -q --bare "$d"
    w=$(mktemp -d)
    cp -r "$root/fixtures/history/v1.0.0/." "$w/"
    GIT_DIR=$d GIT_WORK_TREE=$w git add -A
    t=$(GIT_DIR=$d git write-tree)
    c=$(GIT_DIR=$d GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@b GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@b git commit-tree "$t" -m x)
    rm -rf "$w"
    { echo "# pack-refs with: peeled fully-peeled sorted "
      i=0; while [ $i -lt $n ]; do echo "$c refs/tags/v1.$i.0"; i=$((i + 1)); done | sort -k2; } > "$d/packed-refs"
done
for knobs in "$@"; do
    for n in 2000 8000 20000; do
        rm -rf "$work/out" "$work/cache"
        for run in first again; do
            (cd "$work" && /usr/bin/time -f "$knobs $n tags $run: %e s, %M KB" env KNOBS_CACHE_DIR="$work/cache" \
                "$knobs" sync --repo "file://$work/r$n.git" --all-tags --out out -q)
        done
    done
done
