#!/usr/bin/env bash
# tools/topo-calibrate on 2 ranks (--quick): every setting is printed with
# a finite positive value (the eager limit an integer), the one-host note
# is there, refusals are clear, and a collective program runs with the
# printed settings that this build's component knows (the others are left
# out, so the test holds before and after parameters are added).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cal=${TOPO_CALIBRATE:-${TOPO_BUILDDIR:-$here/../..}/tools/topo-calibrate}
MPIRUN=${MPIRUN:-mpirun}
command -v "$MPIRUN" >/dev/null 2>&1 || { echo "SKIP: $MPIRUN not found"; exit 77; }
[ -x "$cal" ] || { echo "FAIL: $cal not built"; exit 99; }
prog=${TOPO_TEST_BUILDDIR:-$here/..}/mpi/test_allreduce
comp=${TOPO_MCA_COMPONENT_PATH:-}
flags=(--oversubscribe --mca btl self,vader)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/topo-calibrate.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

timeout 300 "$MPIRUN" "${flags[@]}" -np 2 "$cal" --quick >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 0 ] || fail "topo-calibrate --quick exited $rc: $(cat "$tmp/err")"
grep -q '^# network: not measured (no pair of ranks on different hosts)' "$tmp/out" ||
    fail "no one-host note"
grep -Eq '^# intra-host \(ranks 0 and 1\): alpha [0-9.]+ us' "$tmp/out" || fail "no intra-host line"
for p in coll_topo_alpha coll_topo_beta coll_topo_intra_alpha coll_topo_intra_beta \
    coll_topo_gamma coll_topo_eager_limit coll_topo_rndv_alpha; do
    v=$(sed -n "s/^$p = //p" "$tmp/out")
    if [ -z "$v" ]; then
        fail "$p missing from the parameter-file lines"
        continue
    fi
    # finite and positive (the rendezvous cost may be 0), the limit an integer
    awk -v v="$v" -v p="$p" 'BEGIN {
        if (v !~ /^[0-9.]+(e[-+][0-9]+)?$/) exit 1
        if (p == "coll_topo_rndv_alpha") exit !(v + 0 >= 0)
        exit !(v + 0 > 0) }' || fail "$p = '$v' is not a finite positive number"
    grep -q -- "--mca $p $v" "$tmp/out" || fail "$p = $v not among the --mca options"
done
v=$(sed -n 's/^coll_topo_eager_limit = //p' "$tmp/out")
[[ "$v" =~ ^[0-9]+$ ]] || fail "coll_topo_eager_limit '$v' is not an integer"

# refusals
timeout 60 "$MPIRUN" "${flags[@]}" -np 1 "$cal" --quick >"$tmp/one" 2>&1 && fail "1 rank accepted"
grep -q 'needs at least 2 ranks' "$tmp/one" || fail "1 rank: no clear message"
timeout 60 "$MPIRUN" "${flags[@]}" -np 2 "$cal" --bogus >"$tmp/bad" 2>&1 && fail "--bogus accepted"
grep -q "unknown or incomplete option '--bogus'" "$tmp/bad" || fail "--bogus: no clear message"

# the settings, fed back (only those this build's component lists)
if [ -n "$comp" ] && [ -x "$prog" ]; then
    known=$(OMPI_MCA_mca_component_path="$comp" ompi_info --param coll topo --level 9 --parsable 2>/dev/null |
        sed -n 's/^mca:coll:topo:param:\(coll_topo_[a-z_]*\):value:.*/\1/p' | sort -u)
    mca=()
    while read -r p v; do
        grep -qx "$p" <<<"$known" && mca+=(--mca "$p" "$v")
    done < <(sed -n 's/^\(coll_topo_[a-z_]*\) = \(.*\)$/\1 \2/p' "$tmp/out")
    [ ${#mca[@]} -ge 10 ] || fail "fewer than 5 printed settings are known to the component"
    timeout 120 "$MPIRUN" "${flags[@]}" -np 2 --mca mca_component_path "$comp" \
        --mca coll topo,tuned,basic,libnbc,self --mca coll_topo_verbose 1 "${mca[@]}" \
        "$prog" --comms world --max-count 100 >"$tmp/run" 2>&1
    rc=$?
    [ $rc = 0 ] || fail "test_allreduce with the printed settings exited $rc: $(tail -5 "$tmp/run")"
    grep -q 'allreduce uses' "$tmp/run" || fail "coll/topo did not run with the printed settings"
    grep -qi 'not valid\|unknown' "$tmp/run" && fail "a printed setting was refused: $(grep -i 'not valid\|unknown' "$tmp/run")"
else
    echo "note: no component path or test_allreduce: the settings were not fed back"
fi

if [ $failures = 0 ]; then
    echo "PASS: topo-calibrate: $(grep -c ' = ' "$tmp/out") settings printed and accepted"
    exit 0
fi
sed 's/^/    /' "$tmp/out"
exit 1
