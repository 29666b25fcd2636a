#!/usr/bin/env bash
# Refresh the README's algorithm table from the catalog: the table between
# <!-- ALGORITHM TABLE --> and <!-- /ALGORITHM TABLE --> is `topo-plan --catalog`.
#   bash scripts/update-readme.sh [path/to/topo-plan]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
plan=${1:-$root/_build/test-werror/tools/topo-plan}
[ -x "$plan" ] || { echo "update-readme: build topo-plan first (or pass its path)" >&2; exit 1; }
table=$(mktemp)
trap 'rm -f "$table"' EXIT
"$plan" --catalog >"$table"
awk -v table="$table" '
    /<!-- \/ALGORITHM TABLE -->/ { while ((getline line < table) > 0) print line; skip = 0 }
    !skip { print }
    /<!-- ALGORITHM TABLE -->/ { skip = 1 }
' "$root/README" >"$root/README.new"
mv "$root/README.new" "$root/README"
