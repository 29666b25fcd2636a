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

# The defaults of the cost model in README's parameter table must be the
# component's: its help texts print them from the values ("Default: X").
comp=${TOPO_COMPONENT_DIR:-$here/../../ompi-coll-topo/.libs}
pkglibdir=$(ompi_info --parsable --path pkglibdir 2>/dev/null | sed -n 's/^path:pkglibdir://p') || true
if [ ! -f "$comp/mca_coll_topo.so" ] || [ -z "$pkglibdir" ]; then
    echo "note: no component or no ompi_info: the parameter table's defaults were not checked"
    exit 0
fi
defaults=$(OMPI_MCA_mca_component_path="$comp:$pkglibdir" ompi_info --param coll topo --level 9 \
    --parsable 2>/dev/null |
    sed -n 's/^mca:coll:topo:param:\(coll_topo_[a-z_]*\):help:.*  Default: \([-0-9.e+]*\).*/\1 \2/p')
[ "$(echo "$defaults" | grep -c .)" -ge 8 ] ||
    { echo "FAIL: ompi_info shows fewer than 8 cost parameters with 'Default: '"; exit 1; }
bad=0
while read -r name value; do
    row=$(grep -F "| \`$name\` |" "$readme" | head -n 1)
    [ -n "$row" ] || { echo "FAIL: $name is not in README's parameter table"; bad=1; continue; }
    doc=$(echo "$row" | awk -F'|' '{ gsub(/[ `]/, "", $3); print $3 }')
    awk -v a="$doc" -v b="$value" 'BEGIN { exit !(a + 0 == b + 0 && a ~ /^[-0-9.e+]+$/) }' ||
        { echo "FAIL: README gives $name the default '$doc', the component $value"; bad=1; }
done <<<"$defaults"
[ $bad = 0 ] || exit 1
echo "PASS: README's parameter table gives the component's defaults ($(echo "$defaults" | wc -l) cost parameters)"
