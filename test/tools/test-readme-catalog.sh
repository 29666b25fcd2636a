#!/usr/bin/env bash
# The README's algorithm table must be the catalog's (topo-plan --catalog):
# a new or changed algorithm without `bash scripts/update-readme.sh` fails.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
plan=${TOPO_PLAN:-${TOPO_BUILDDIR:-$here/../..}/tools/topo-plan}
readme="$here/../../README"
[ -x "$plan" ] || { echo "SKIP: no topo-plan at $plan"; exit 77; }
want=$("$plan" --catalog)
have=$(sed -n '/<!-- ALGORITHM TABLE -->/,/<!-- \/ALGORITHM TABLE -->/p' "$readme" | sed '1d;$d')
if [ "$want" != "$have" ]; then
    echo "FAIL: README's algorithm table differs from topo-plan --catalog; run scripts/update-readme.sh"
    diff <(echo "$want") <(echo "$have") || true
    exit 1
fi
echo "PASS: README's algorithm table matches the catalog ($(echo "$want" | wc -l) lines)"
