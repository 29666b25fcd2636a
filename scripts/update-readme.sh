#!/usr/bin/env bash
# Refresh what the README takes from the code:
#  - the algorithm table between <!-- ALGORITHM TABLE --> and
#    <!-- /ALGORITHM TABLE --> is `topo-plan --catalog`;
#  - the parameter table's rows of the numeric parameters end with
#    ".  Range: X", X from the component's help text (ompi_info), when
#    the component (mca_coll_topo.so) and ompi_info are there.
#   bash scripts/update-readme.sh [path/to/topo-plan [dir/of/mca_coll_topo.so]]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
plan=${1:-$root/_build/test-werror/tools/topo-plan}
[ -x "$plan" ] || { echo "update-readme: build topo-plan first (or pass its path)" >&2; exit 1; }
comp=${2:-$(dirname "$plan")/../ompi-coll-topo/.libs}
table=$(mktemp)
ranges=$(mktemp)
trap 'rm -f "$table" "$ranges"' EXIT
"$plan" --catalog >"$table"
pkglibdir=$(ompi_info --parsable --path pkglibdir 2>/dev/null | sed -n 's/^path:pkglibdir://p') || true
if [ -f "$comp/mca_coll_topo.so" ] && [ -n "$pkglibdir" ]; then
    OMPI_MCA_mca_component_path="$comp:$pkglibdir" ompi_info --param coll topo --level 9 \
        --parsable 2>/dev/null |
        sed -n 's/^mca:coll:topo:param:\(coll_topo_[a-z_]*\):help:.*  Range: \(.*\) (outside it: .*/\1|\2/p' \
            >"$ranges"
    [ -s "$ranges" ] || { echo "update-readme: ompi_info gave no ranges" >&2; exit 1; }
else
    echo "update-readme: no component at $comp (or no ompi_info): ranges left as they are" >&2
fi
awk -v table="$table" -v ranges="$ranges" '
    BEGIN { FS = "|"; while ((getline line < ranges) > 0) { split(line, f, "|"); range[f[1]] = f[2] } }
    /<!-- \/ALGORITHM TABLE -->/ { while ((getline line < table) > 0) print line; skip = 0 }
    skip { next }
    /^\| `coll_topo_[a-z_]*` \|/ {
        name = $2; gsub(/[ `]/, "", name)
        if (name in range) {
            sub(/\.  Range: [^|]* \|$/, " |")
            sub(/ \|$/, ".  Range: " range[name] " |")
        }
    }
    { print }
    /<!-- ALGORITHM TABLE -->/ { skip = 1 }
' "$root/README" >"$root/README.new"
mv "$root/README.new" "$root/README"
