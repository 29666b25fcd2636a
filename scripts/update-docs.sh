#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# Refresh the documentation that is generated from the code:
#  - docs/algorithms.md: the table between <!-- ALGORITHM TABLE --> and
#    <!-- /ALGORITHM TABLE --> is `topo-plan --catalog`;
#  - docs/parameters.md: the rows of the numeric parameters end with
#    ".  Range: X", X from the component's help text (ompi_info), when the
#    component (mca_coll_topo.so) and ompi_info are there.
# test/tools/test-docs-tables.sh fails when either is stale.
#
#   bash scripts/update-docs.sh [path/to/topo-plan [dir/of/mca_coll_topo.so]]
#
# Without arguments it takes topo-plan from the first of _build/test-werror
# (scripts/test.sh's build), _build/dev and _build/demo that has one.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
plan=${1:-}
if [ -z "$plan" ]; then
    for b in test-werror dev demo; do
        [ -x "$root/_build/$b/tools/topo-plan" ] && { plan=$root/_build/$b/tools/topo-plan; break; }
    done
fi
[ -n "$plan" ] && [ -x "$plan" ] || { echo "update-docs: build topo-plan first (or pass its path)" >&2; exit 1; }
comp=${2:-$(dirname "$plan")/../ompi-coll-topo/.libs}
algorithms=$root/docs/algorithms.md
parameters=$root/docs/parameters.md
table=$(mktemp)
ranges=$(mktemp)
trap 'rm -f "$table" "$ranges" "$algorithms.new" "$parameters.new"' EXIT
"$plan" --catalog >"$table"
pkglibdir=$(ompi_info --parsable --path pkglibdir 2>/dev/null | sed -n 's/^path:pkglibdir://p') || true
if [ -f "$comp/mca_coll_topo.so" ] && [ -n "$pkglibdir" ]; then
    OMPI_MCA_mca_component_path="$comp:$pkglibdir" ompi_info --param coll topo --level 9 \
        --parsable 2>/dev/null |
        sed -n 's/^mca:coll:topo:param:\(coll_topo_[a-z_]*\):help:.*  Range: \(.*\) (outside it: .*/\1|\2/p' \
            >"$ranges"
    [ -s "$ranges" ] || { echo "update-docs: ompi_info gave no ranges" >&2; exit 1; }
else
    echo "update-docs: no component at $comp (or no ompi_info): ranges left as they are" >&2
fi
for marker in '<!-- ALGORITHM TABLE -->' '<!-- /ALGORITHM TABLE -->'; do
    grep -qxF "$marker" "$algorithms" || { echo "update-docs: $algorithms lacks $marker" >&2; exit 1; }
done
awk -v table="$table" '
    /<!-- \/ALGORITHM TABLE -->/ { while ((getline line < table) > 0) print line; skip = 0 }
    skip { next }
    { print }
    /<!-- ALGORITHM TABLE -->/ { skip = 1 }
' "$algorithms" >"$algorithms.new"
awk -v ranges="$ranges" '
    BEGIN { FS = "|"; while ((getline line < ranges) > 0) { split(line, f, "|"); range[f[1]] = f[2] } }
    /^\| `coll_topo_[a-z_]*` \|/ {
        name = $2; gsub(/[ `]/, "", name)
        if (name in range) {
            sub(/\.  Range: [^|]* \|$/, " |")
            sub(/ \|$/, ".  Range: " range[name] " |")
        }
    }
    { print }
' "$parameters" >"$parameters.new"
mv "$algorithms.new" "$algorithms"
mv "$parameters.new" "$parameters"
