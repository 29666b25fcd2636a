#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# tools/topo-calibrate on 2 ranks (--quick): every setting is printed with
# a finite positive value (the eager limit an integer), the one-host note
# is there, the --format choices print what they name, a value that cannot
# be measured is left out with its reason (never printed as 0, which
# switches the protocol term off), the eager limit comes from the BTL's
# control variable (MPI_T) or from the ping-pong, two hosts are two link
# classes, the written-data price is beta plus a premium (never below
# beta), refusals are clear, and a collective program runs with the
# printed settings that this build's component knows (the others are left
# out, so the test holds before and after parameters are added).  No
# assertion is on a measured time.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
MPIRUN=${MPIRUN:-mpirun}
command -v "$MPIRUN" >/dev/null 2>&1 || { echo "SKIP: $MPIRUN not found"; exit 77; }
# find_first FILE DIR... : the first DIR holding FILE, as an absolute path.
find_first() {
    local f=$1 d
    shift
    for d in "$@"; do
        [ -n "$d" ] && [ -e "$d/$f" ] && { (cd "$d" && pwd); return 0; }
    done
    return 1
}
cal_dir=$(find_first topo-calibrate "${TOPO_CALIBRATE_DIR:-}" "${TOPO_BUILDDIR:+$TOPO_BUILDDIR/tools}" \
    "$here/../../tools" ./tools) || { echo "ERROR: topo-calibrate not built (set TOPO_CALIBRATE_DIR)"; exit 99; }
cal=$cal_dir/topo-calibrate
prog_dir=$(find_first test_allreduce "${TOPO_MPI_TEST_DIR:-}" \
    "${TOPO_TEST_BUILDDIR:+$TOPO_TEST_BUILDDIR/mpi}" "$here/../mpi" ./test/mpi) || prog_dir=
prog=${prog_dir:+$prog_dir/test_allreduce}
comp=${TOPO_MCA_COMPONENT_PATH:-}
# shellcheck disable=SC2054 # the comma is inside one value
flags=(--oversubscribe --mca btl self,vader)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/topo-calibrate.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}
# zero_with_times FILE: the summary gives the times behind a printed
# coll_topo_rndv_alpha 0 (the first size above the eager limit no slower
# than the eager line)
zero_with_times() {
    grep -q 'rendezvous +0 ([0-9]* B took .*, not more than the eager line' "$1"
}

timeout 300 "$MPIRUN" "${flags[@]}" -np 2 "$cal" --quick >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 0 ] || fail "topo-calibrate --quick exited $rc: $(cat "$tmp/err")"
grep -q '^# network: not measured (no pair of ranks on different hosts)' "$tmp/out" ||
    fail "no one-host note"
grep -Eq '^# intra-host \(ranks 0 and 1\): alpha [0-9.]+ us' "$tmp/out" || fail "no intra-host line"
grep -Eq '^# messages: \+[0-9.]+ us per message more in a step \(intra-host, ranks 0 and 1: 1 to 8 messages of 8 B posted at once\)' "$tmp/out" ||
    fail "no per-message overhead line"
for p in coll_topo_alpha coll_topo_beta coll_topo_intra_alpha coll_topo_intra_beta coll_topo_intra_beta_written \
    coll_topo_gamma coll_topo_copy coll_topo_msg_overhead coll_topo_eager_limit; do
    v=$(sed -n "s/^$p = //p" "$tmp/out")
    if [ -z "$v" ]; then
        fail "$p missing from the parameter-file lines"
        continue
    fi
    # finite and positive, the limit an integer
    awk -v v="$v" 'BEGIN { exit !(v ~ /^[0-9.]+(e[-+][0-9]+)?$/ && v + 0 > 0) }' ||
        fail "$p = '$v' is not a finite positive number"
    grep -q -- "--mca $p $v" "$tmp/out" || fail "$p = $v not among the --mca options"
done
v=$(sed -n 's/^coll_topo_eager_limit = //p' "$tmp/out")
[[ "$v" =~ ^[0-9]+$ ]] || fail "coll_topo_eager_limit '$v' is not an integer"
# written data: beta plus its premium over clean data, never below beta
grep -Eq "data the sender's receive has just written [0-9.]+ ns/B \([-+][0-9.]+ ns/B over clean data at 32-512 KiB\)" "$tmp/out" ||
    fail "the written-data measurement does not name its premium over clean data"
b=$(sed -n 's/^coll_topo_intra_beta = //p' "$tmp/out")
w=$(sed -n 's/^coll_topo_intra_beta_written = //p' "$tmp/out")
awk -v b="$b" -v w="$w" 'BEGIN { exit !(w + 0 >= b + 0) }' ||
    fail "coll_topo_intra_beta_written $w is below coll_topo_intra_beta $b"
# the rendezvous cost: measured (positive), or 0 where the step above the
# eager limit is lost in the noise (a machine whose single-copy rendezvous
# costs no more than an eager copy: no protocol switch), with the times
v=$(sed -n 's/^coll_topo_rndv_alpha = //p' "$tmp/out")
if [ "$v" = 0 ]; then
    zero_with_times "$tmp/out" || fail "coll_topo_rndv_alpha = 0 without the times that gave it"
else
    awk -v v="$v" 'BEGIN { exit !(v ~ /^[0-9.]+(e[-+][0-9]+)?$/ && v + 0 > 0) }' ||
        fail "coll_topo_rndv_alpha = '$v' is not a finite positive number, nor 0"
fi

# --format: one form each
grep -q -- '--mca' "$tmp/out" || fail "--format=both (default): no --mca options"
for f in mca conf; do
    timeout 120 "$MPIRUN" "${flags[@]}" -np 2 "$cal" --quick --reps 20 --format=$f >"$tmp/$f" 2>&1 ||
        fail "--format=$f exited non-zero: $(tail -3 "$tmp/$f")"
done
grep -q -- '--mca coll_topo_gamma ' "$tmp/mca" || fail "--format=mca: no --mca line"
grep -q '^coll_topo_[a-z_]* = ' "$tmp/mca" && fail "--format=mca printed parameter-file lines"
grep -q '^coll_topo_gamma = ' "$tmp/conf" || fail "--format=conf: no parameter-file lines"
grep -q -- '--mca' "$tmp/conf" && fail "--format=conf printed --mca options"

# the eager limit read through MPI_T: vader's, changed, less 64 bytes of headers
timeout 120 "$MPIRUN" "${flags[@]}" -np 2 --mca btl_vader_eager_limit 8192 "$cal" --quick --reps 20 \
    --format=conf >"$tmp/e8k" 2>&1 || fail "btl_vader_eager_limit 8192: exited non-zero"
grep -q '^coll_topo_eager_limit = 8128$' "$tmp/e8k" ||
    fail "btl_vader_eager_limit 8192: not coll_topo_eager_limit = 8128: $(grep eager "$tmp/e8k")"
grep -q 'from btl_vader_eager_limit = 8192 (MPI_T)' "$tmp/e8k" || fail "btl_vader_eager_limit 8192: source not named"

# no message above the eager limit: the rendezvous cost is left out, not 0
timeout 120 "$MPIRUN" "${flags[@]}" -np 2 "$cal" --quick --reps 20 --max-bytes 2048 >"$tmp/small" 2>&1 ||
    fail "--max-bytes 2048 exited non-zero: $(tail -3 "$tmp/small")"
grep -q '^# coll_topo_rndv_alpha left out (the component.s default applies): --max-bytes 2048 does not reach above the eager limit' "$tmp/small" ||
    fail "--max-bytes 2048: no reason for leaving out coll_topo_rndv_alpha"
grep -Eq 'coll_topo_rndv_alpha( =)? [0-9]' "$tmp/small" && fail "--max-bytes 2048: a rendezvous cost was printed"
grep -q '^coll_topo_eager_limit = 4032$' "$tmp/small" || fail "--max-bytes 2048: the eager limit is not vader's 4032"

# the eager limit found in the ping-pong (bisected) or, on a noisy machine,
# left out with the reason; either way the run completes (the pair agrees
# on every size) and prints no 0 but a measured rendezvous of +0
timeout 120 "$MPIRUN" "${flags[@]}" -np 2 "$cal" --quick --measure-eager --format=conf >"$tmp/meas" 2>&1 ||
    fail "--measure-eager exited non-zero: $(tail -3 "$tmp/meas")"
if grep -q "eager limit [0-9]* B (from the ping-pong's jump between" "$tmp/meas"; then
    v=$(sed -n 's/^coll_topo_eager_limit = //p' "$tmp/meas")
    if ! [[ "$v" =~ ^[0-9]+$ ]] || [ "$v" -lt 256 ]; then fail "--measure-eager: eager limit '$v'"; fi
else
    grep -q '^# coll_topo_eager_limit left out (the component.s default applies): no jump in the ping-pong' "$tmp/meas" ||
        fail "--measure-eager: neither a measured eager limit nor the reason: $(grep eager "$tmp/meas")"
fi
# (coll_topo_rndv_alpha may be 0, no protocol switch, with the times that
# gave it: a loaded machine can time the first rendezvous size no slower)
if grep -E ' = 0$' "$tmp/meas" | grep -qv '^coll_topo_rndv_alpha = 0$'; then
    fail "--measure-eager: a 0 was printed: $(grep -E ' = 0$' "$tmp/meas")"
fi
if grep -q '^coll_topo_rndv_alpha = 0$' "$tmp/meas"; then
    zero_with_times "$tmp/meas" ||
        fail "--measure-eager: coll_topo_rndv_alpha = 0 without the times that gave it"
fi

# two hosts (TOPO_CALIBRATE_HOST stands for the host name): ranks 0 and 1
# intra-host, rank 2 network; no one-host note; coll_topo_alpha measured
timeout 120 "$MPIRUN" "${flags[@]}" -np 2 -x TOPO_CALIBRATE_HOST=a "$cal" --quick --reps 20 --format=conf : \
    -np 1 -x TOPO_CALIBRATE_HOST=b "$cal" --quick --reps 20 --format=conf >"$tmp/two" 2>&1 ||
    fail "two hosts: exited non-zero: $(tail -3 "$tmp/two")"
grep -q '^# coll/topo calibration: 3 ranks on 2 hosts$' "$tmp/two" || fail "two hosts: not 3 ranks on 2 hosts"
grep -q '^# intra-host (ranks 0 and 1): ' "$tmp/two" || fail "two hosts: no intra-host pair 0 and 1"
grep -q '^# network (ranks 0 and 2): ' "$tmp/two" || fail "two hosts: no network pair 0 and 2"
# (with 3 ranks on a small machine the network pair's protocol jump may be
# lost in noise: its eager limit and rendezvous cost may then be left out
# with the reason, but both classes themselves must be measured)
grep -Eq '^# (network|intra-host): not measured' "$tmp/two" &&
    fail "two hosts: a class not measured: $(grep 'not measured' "$tmp/two")"
grep -Eq '^# network \(ranks 0 and 2\): alpha [0-9.]+ us, beta [0-9.]+ ns/B' "$tmp/two" ||
    fail "two hosts: the network class has no alpha and beta"
grep -q '^coll_topo_alpha = ' "$tmp/two" || fail "two hosts: no coll_topo_alpha"
# ranks 0 and 1 share a host: no measurement with every rank at once
grep -q '^# network, every rank at once: not measured (ranks next to each other in rank order share a host, and no coll_topo_coords_file)' "$tmp/two" ||
    fail "two hosts of 2 and 1 ranks: the busy network beta not refused"

# every rank a host of its own: the network's beta with every rank
# exchanging at once, and coll_topo_beta is it (the same 3 digits)
timeout 120 "$MPIRUN" "${flags[@]}" -np 1 -x TOPO_CALIBRATE_HOST=a "$cal" --quick --reps 20 --format=conf : \
    -np 1 -x TOPO_CALIBRATE_HOST=b "$cal" --quick --reps 20 --format=conf >"$tmp/busy" 2>&1 ||
    fail "two hosts of 1 rank: exited non-zero: $(tail -3 "$tmp/busy")"
busy=$(sed -n 's/^# network, every rank at once (1 message each way per rank to its ring neighbours; no placement: no coll_topo_coords_file): beta \([0-9.]*\) ns\/B.*: coll_topo_beta$/\1/p' "$tmp/busy")
[ -n "$busy" ] || fail "two hosts of 1 rank: no busy network beta: $(grep 'every rank at once' "$tmp/busy")"
beta=$(sed -n 's/^coll_topo_beta = //p' "$tmp/busy")
awk -v a="$busy" -v b="$beta" 'BEGIN { r = a * 1e-9 / b; exit !(r > 0.99 && r < 1.01) }' ||
    fail "two hosts of 1 rank: coll_topo_beta $beta is not the busy beta $busy ns/B"

# a coordinates file places the hosts: the busy exchange goes to each
# position's neighbours on the grid (a 1-D mesh of 4: the ends have one,
# the middle two), every host at a position of its own; through
# coll_topo_coords_file (as mpirun's --mca sets it) and --coords-file
printf 'mesh:4\n# a comment\nh0 0\nh1 1\nh2 2\nh3 3\n' >"$tmp/line.coords"
hosts4() { # ARGS: timeout, and 4 ranks on hosts h0 h1 h2 h3, each with ARGS
    local args=() r
    for r in 0 1 2 3; do
        [ $r = 0 ] || args+=(:)
        args+=(-np 1 -x "TOPO_CALIBRATE_HOST=h$r" "$@")
    done
    timeout 180 "$MPIRUN" "${flags[@]}" "${args[@]}"
}
hosts4 -x "OMPI_MCA_coll_topo_coords_file=$tmp/line.coords" "$cal" --quick --reps 20 --format=conf \
    >"$tmp/placed" 2>&1 || fail "placed: exited non-zero: $(tail -3 "$tmp/placed")"
grep -q "^# network, every rank at once (up to 2 messages each way per position to its neighbours on mesh:4 from $tmp/line.coords): beta [0-9.]* ns/B" "$tmp/placed" ||
    fail "placed: the busy exchange is not the placement's: $(grep 'every rank at once' "$tmp/placed")"
pbusy=$(sed -n 's/^# network, every rank at once (up to .*): beta \([0-9.]*\) ns\/B.*: coll_topo_beta$/\1/p' "$tmp/placed")
pbeta=$(sed -n 's/^coll_topo_beta = //p' "$tmp/placed")
awk -v a="$pbusy" -v b="$pbeta" 'BEGIN { r = a * 1e-9 / b; exit !(r > 0.99 && r < 1.01) }' ||
    fail "placed: coll_topo_beta $pbeta is not the placement's busy beta $pbusy ns/B"
# a host the file does not list: the ring, with the reason
printf 'mesh:4\nh0 0\nh1 1\nh2 2\nhx 3\n' >"$tmp/miss.coords"
hosts4 "$cal" --quick --reps 20 --format=conf --coords-file "$tmp/miss.coords" \
    >"$tmp/miss" 2>&1 || fail "missing host: exited non-zero: $(tail -3 "$tmp/miss")"
grep -q "^# network, every rank at once (2 messages each way per rank to its ring neighbours; no placement: host 'h3' has no line in the coordinates file $tmp/miss.coords): beta" "$tmp/miss" ||
    fail "missing host: no ring fallback with the reason: $(grep 'every rank at once' "$tmp/miss")"
# a broken file: the ring, with the line and the problem
printf 'torus:2x2\nh0 0 0\nh1 0 1\nh2 1 0\nh3 1 2\n' >"$tmp/bad.coords"
hosts4 "$cal" --quick --reps 20 --format=conf --coords-file "$tmp/bad.coords" \
    >"$tmp/bad" 2>&1 || fail "broken file: exited non-zero: $(tail -3 "$tmp/bad")"
grep -q "no placement: the coordinates file $tmp/bad.coords, line 5: host 'h3': coordinate '2' is not an integer within the shape): beta" "$tmp/bad" ||
    fail "broken file: no ring fallback with the reason: $(grep 'every rank at once' "$tmp/bad")"

# --help, without a second rank
timeout 60 "$MPIRUN" "${flags[@]}" -np 1 "$cal" --help >"$tmp/help" 2>&1 || fail "--help exited non-zero"
grep -q '^usage: mpirun -np N topo-calibrate' "$tmp/help" || fail "--help: no usage"

# refusals
timeout 60 "$MPIRUN" "${flags[@]}" -np 1 "$cal" --quick >"$tmp/one" 2>&1 && fail "1 rank accepted"
grep -q 'needs at least 2 ranks' "$tmp/one" || fail "1 rank: no clear message"
timeout 60 "$MPIRUN" "${flags[@]}" -np 2 "$cal" --bogus >"$tmp/bad" 2>&1 && fail "--bogus accepted"
grep -q "unknown or incomplete option '--bogus'" "$tmp/bad" || fail "--bogus: no clear message"
timeout 60 "$MPIRUN" "${flags[@]}" -np 2 "$cal" --max-bytes 12X >"$tmp/badsize" 2>&1 && fail "--max-bytes 12X accepted"
grep -q 'max-bytes' "$tmp/badsize" || fail "--max-bytes 12X: no clear message"

# the settings, fed back (only those this build's component lists)
if [ -n "$comp" ] && [ -n "$prog" ] && [ -x "$prog" ]; then
    known=$(OMPI_MCA_mca_component_path="$comp" ompi_info --param coll topo --level 9 --parsable 2>/dev/null |
        sed -n 's/^mca:coll:topo:param:\(coll_topo_[a-z_]*\):value:.*/\1/p' | sort -u)
    mca=()
    while read -r p v; do
        grep -qx "$p" <<<"$known" && mca+=(--mca "$p" "$v")
    done < <(sed -n 's/^\(coll_topo_[a-z_]*\) = \(.*\)$/\1 \2/p' "$tmp/out")
    [ ${#mca[@]} -ge 10 ] || fail "fewer than 5 printed settings are known to the component"
    timeout 120 "$MPIRUN" "${flags[@]}" -np 2 --mca mca_component_path "$comp" \
        --mca coll topo,tuned,inter,basic,libnbc,self --mca coll_topo_verbose 1 "${mca[@]}" \
        "$prog" --comms world --max-count 100 >"$tmp/run" 2>&1
    rc=$?
    [ $rc = 0 ] || fail "test_allreduce with the printed settings exited $rc: $(tail -5 "$tmp/run")"
    grep -q 'allreduce uses' "$tmp/run" || fail "coll/topo did not run with the printed settings"
    grep -qi 'not valid\|unknown\|not a number in its range' "$tmp/run" &&
        fail "a printed setting was refused: $(grep -i 'not valid\|unknown\|not a number in its range' "$tmp/run")"
    fedback=1
else
    fedback=0
fi

if [ $failures = 0 ] && [ $fedback = 0 ]; then
    # what it is about, the printed settings in a collective run, was not tried
    echo "SKIP: topo-calibrate: no component path (TOPO_MCA_COMPONENT_PATH) or test_allreduce: the printed settings were not fed back"
    exit 77
fi
if [ $failures = 0 ]; then
    echo "PASS: topo-calibrate: $(grep -c '^coll_topo_[a-z_]* = ' "$tmp/out") settings printed and accepted"
    exit 0
fi
sed 's/^/    /' "$tmp/out"
exit 1
