#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# The generated documentation must match the code:
#  - docs/algorithms.md's table is the catalog's (topo-plan --catalog): a new
#    or changed algorithm without `bash scripts/update-docs.sh` fails;
#  - docs/parameters.md gives the component's defaults and ranges;
#  - every help text is one line of at most 640 characters.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
plan=${TOPO_PLAN:-${TOPO_BUILDDIR:-$here/../..}/tools/topo-plan}
algorithms="$here/../../docs/algorithms.md"
parameters="$here/../../docs/parameters.md"
[ -x "$plan" ] || { echo "SKIP: no topo-plan at $plan"; exit 77; }
want=$("$plan" --catalog)
have=$(sed -n '/<!-- ALGORITHM TABLE -->/,/<!-- \/ALGORITHM TABLE -->/p' "$algorithms" | sed '1d;$d')
if [ "$want" != "$have" ]; then
    echo "FAIL: docs/algorithms.md's table differs from topo-plan --catalog; run scripts/update-docs.sh"
    diff <(echo "$want") <(echo "$have") || true
    exit 1
fi
echo "PASS: docs/algorithms.md's table matches the catalog ($(echo "$want" | wc -l) lines)"

# The defaults of the cost model in docs/parameters.md must be the
# component's: its help texts print them from the values ("Default: X").
comp=${TOPO_COMPONENT_DIR:-$here/../../ompi-coll-topo/.libs}
pkglibdir=$(ompi_info --parsable --path pkglibdir 2>/dev/null | sed -n 's/^path:pkglibdir://p') || true
if [ ! -f "$comp/mca_coll_topo.so" ] || [ -z "$pkglibdir" ]; then
    echo "SKIP: no component or no ompi_info: the parameter table's defaults were not checked"
    exit 77
fi
defaults=$(OMPI_MCA_mca_component_path="$comp:$pkglibdir" ompi_info --param coll topo --level 9 \
    --parsable 2>/dev/null |
    sed -n 's/^mca:coll:topo:param:\(coll_topo_[a-z_]*\):help:.*  Default: \([-0-9.e+]*\).*/\1 \2/p')
[ "$(echo "$defaults" | grep -c .)" -ge 8 ] ||
    { echo "FAIL: ompi_info shows fewer than 8 cost parameters with 'Default: '"; exit 1; }
bad=0
while read -r name value; do
    row=$(grep -F "| \`$name\` |" "$parameters" | head -n 1)
    [ -n "$row" ] || { echo "FAIL: $name is not in docs/parameters.md"; bad=1; continue; }
    doc=$(echo "$row" | awk -F'|' '{ gsub(/[ `]/, "", $3); print $3 }')
    awk -v a="$doc" -v b="$value" 'BEGIN { exit !(a + 0 == b + 0 && a ~ /^[-0-9.e+]+$/) }' ||
        { echo "FAIL: docs/parameters.md gives $name the default '$doc', the component $value"; bad=1; }
done <<<"$defaults"
[ $bad = 0 ] || exit 1
echo "PASS: docs/parameters.md gives the component's defaults ($(echo "$defaults" | wc -l) numeric parameters)"

# Every numeric parameter's range (its help text's "Range: X (outside it:
# ...") must end the parameter's row of docs/parameters.md as "Range: X"
# (scripts/update-docs.sh writes them).
info=$(OMPI_MCA_mca_component_path="$comp:$pkglibdir" ompi_info --param coll topo --level 9 \
    --parsable 2>/dev/null)
ranges=$(echo "$info" |
    sed -n 's/^mca:coll:topo:param:\(coll_topo_[a-z_]*\):help:.*  Range: \(.*\) (outside it: .*/\1 \2/p')
[ "$(echo "$ranges" | grep -c .)" -ge 20 ] ||
    { echo "FAIL: ompi_info shows fewer than 20 parameters with 'Range: '"; exit 1; }
# ... and every numeric parameter (int but not an enumeration, long,
# size_t, double, or a string holding the cost model's seconds) has one.
numeric=$(echo "$info" | sed -n 's/^mca:coll:topo:param:\(coll_topo_[a-z_]*\):type:\(int\|long\|size_t\|double\)$/\1/p')
enums=$(echo "$info" | sed -n 's/^mca:coll:topo:param:\(coll_topo_[a-z_]*\):enumerator:.*/\1/p' | sort -u)
for name in $numeric; do
    grep -qx "$name" <<<"$enums" && continue
    grep -q "^$name " <<<"$ranges" || { echo "FAIL: $name's help text gives no 'Range: '"; bad=1; }
done
while read -r name range; do
    row=$(grep -F "| \`$name\` |" "$parameters" | head -n 1)
    case $row in
    *".  Range: $range |") ;;
    *) echo "FAIL: docs/parameters.md's row of $name does not end with 'Range: $range' (run scripts/update-docs.sh)"; bad=1 ;;
    esac
done <<<"$ranges"
[ $bad = 0 ] || exit 1
echo "PASS: docs/parameters.md gives the component's ranges ($(echo "$ranges" | wc -l) parameters)"

# Help texts: one line each (a line break would start a line of --parsable
# output without its mca: prefix, and one at column 0 in the readable
# output) and at most 640 characters (ompi_info wraps them at a terminal's
# width, but prints each on one line into a pipe).
stray=$(echo "$info" | grep -v '^mca:' || true)
[ -z "$stray" ] || { echo "FAIL: a help text holds a line break: $(echo "$stray" | head -n 1)"; exit 1; }
long=$(echo "$info" | sed -n 's/^mca:coll:topo:param:\(coll_topo_[a-z_]*\):help:\(.*\)/\1 \2/p' |
    awk '{ n = length($0) - length($1) - 1; if (n > 640) print $1 " (" n " characters)" }')
[ -z "$long" ] || { echo "FAIL: help texts longer than 640 characters: $long"; exit 1; }
echo "PASS: every help text is one line of at most 640 characters"
