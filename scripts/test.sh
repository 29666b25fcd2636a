#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# The test suite, as CI runs it (.ci/run):
#   1. installs the dependencies (scripts/install-deps.sh);
#   2. a clean build with --enable-werror (the unit tests too are built)
#      and "make other-check" (every test but the unit tests: MPI tests
#      against the component just built, the tools' tests, source-list
#      check), then a subset of the MPI tables over libfabric
#      (coll_topo_transport=ofi);
#   3. a clean build with --enable-sanitizers running the unit tests, once,
#      two at a time (AddressSanitizer + UndefinedBehaviorSanitizer);
#   4. small MPI tests under valgrind memcheck (one over libfabric where
#      the component has it), failing on any error or
#      definite leak whose stack shows coll/topo (Open MPI's own noise is
#      suppressed or ignored);
#   5. scripts/testbed.sh's input checks, and the MPI tests over TCP on an
#      emulated 2x2 torus of network namespaces, placed by a coordinates
#      file (skipped without root or CAP_NET_ADMIN);
#   6. a one-machine Slurm (scripts/slurm.sh) and the MPI tests under
#      srun --mpi=pmix on 4 ranks (skipped without root, or where Slurm and
#      munge cannot be installed).
# Every stage runs even if an earlier one failed; the exit status is
# non-zero if anything failed.  The last line is "N passed, N failed".
#
#   bash scripts/test.sh            (from the repository root)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
builds="$root/_build"
jobs=$(nproc 2>/dev/null || echo 2)
passed=0
failed=0
skipped=0

stage_start=$SECONDS
step() {
    printf '\n==== %s (after %d s)\n' "$*" $((SECONDS - stage_start))
}

# Open MPI's shared-memory segments of jobs that died (a killed test leaves
# them behind and they fill /dev/shm): remove ours that no process maps.
clean_shm() {
    local in_use f
    in_use=$(cat /proc/[0-9]*/maps 2>/dev/null | grep -o '/dev/shm/[^ ]*' | sort -u || true)
    # PID:N:N: libfabric shm provider's endpoint regions (coll_topo_transport=ofi)
    for f in /dev/shm/vader_segment.* /dev/shm/sm_segment.* /dev/shm/ompi.* /dev/shm/psm2_shm.* \
        /dev/shm/[0-9]*:[0-9]*:[0-9]*; do
        { [ -e "$f" ] && [ -O "$f" ]; } || continue
        grep -qxF "$f" <<<"$in_use" || rm -f "$f"
    done
}

# Add one automake test-suite.log's counts to the totals.
count() {
    local log=$1
    [ -f "$log" ] || { failed=$((failed + 1)); return; }
    field() {
        local v
        v=$(sed -n "s/^# $1: *\([0-9]*\)$/\1/p" "$log" | head -n 1)
        echo "${v:-0}"
    }
    passed=$((passed + $(field PASS) + $(field XFAIL)))
    failed=$((failed + $(field FAIL) + $(field ERROR) + $(field XPASS)))
    skipped=$((skipped + $(field SKIP)))
}

# Print the logs of the failed tests of one test directory.
show_failures() {
    local log=$1
    if [ -f "$log" ]; then
        echo "---- $log"
        cat "$log"
    fi
}

step "installing dependencies"
bash "$root/scripts/install-deps.sh"
clean_shm

step "generating configure"
(cd "$root" && ./autogen.sh)

# --- 1. -Werror build, make other-check -------------------------------------
step "build with --enable-werror, make other-check"
werror="$builds/test-werror"
rm -rf "$werror"
mkdir -p "$werror"
# Installed into the build directory first: this checks "make install", and
# the component finds its help file (TOPO_HELP_DIR) during the tests.
inst="$werror/_install"
if (cd "$werror" && "$root/configure" --enable-werror --prefix="$inst" \
        --with-mca-component-dir="$inst/lib/openmpi" &&
    make -j"$jobs" && make install >install.log &&
    test -f "$inst/lib/openmpi/mca_coll_topo.so" &&
    test ! -e "$inst/lib/openmpi/mca_coll_topo.la" &&
    test -f "$inst/share/ompi-coll-topo/help-coll-topo.txt"); then
    # the unit tests are built here (-Werror) and run in the sanitizer
    # build below, not twice
    if ! (cd "$werror" && make -j"$jobs" -C test check TESTS= && make -C test other-check); then
        show_failures "$werror/test/test-suite.log"
    fi
    count "$werror/test/test-suite.log"
    # The MPI tables again with every case's messages over libfabric
    # (run-cases.sh: TOPO_TEST_TRANSPORT), a representative subset (both
    # tables whole take about an hour over tcp on 2 cores): over shm, every
    # algorithm of every primitive on 4 ranks, auto on 3, the grid
    # algorithms on torus:2x3 and 2x2x2, the segmented cases of 3 ranks and
    # of the grids, and a bad value (39 cases); over tcp;ofi_rxm on the
    # loopback interface, those of 4 ranks (13 cases).
    for prov in shm 'tcp;ofi_rxm'; do
        only='@(np4-*|np3-auto|bucket-@(torus:2x2x2|torus:2x3|mesh:2x4)|bfb-torus:2x3|segments-@(np3-*|torus:*|alltoall-*)|bad-algorithm|grid-torus:2x3*|grid-torus:2x2x2)'
        [ "$prov" = shm ] || only='np4-*'
        clean_shm
        if ldd "$werror/ompi-coll-topo/.libs/mca_coll_topo.so" 2>/dev/null | grep -q libfabric &&
            FI_TCP_IFACE=lo timeout 60 fi_info -p "$prov" -t FI_EP_RDM >/dev/null 2>&1; then
            step "MPI tests over libfabric (coll_topo_transport=ofi, $prov): allreduce and primitives, a subset"
            if ! (cd "$werror" && TOPO_TEST_TRANSPORT="ofi:$prov" TOPO_TEST_ONLY="$only" \
                make -C test check TESTS='mpi/cases/allreduce.cases mpi/cases/primitives.cases' \
                TEST_SUITE_LOG="ofi-${prov%%;*}-suite.log"); then
                show_failures "$werror/test/ofi-${prov%%;*}-suite.log"
            fi
            count "$werror/test/ofi-${prov%%;*}-suite.log"
        else
            echo "SKIP: MPI tests over libfabric, $prov (the component has no libfabric transport, or fi_info has no $prov provider)"
        fi
    done
else
    echo "test: the --enable-werror build or its installation failed" >&2
    failed=$((failed + 1))
fi
clean_shm

# --- 2. sanitizers, unit tests only ------------------------------------------
step "build with --enable-sanitizers, unit tests"
san="$builds/test-sanitizers"
rm -rf "$san"
mkdir -p "$san"
if (cd "$san" && "$root/configure" --enable-sanitizers); then
    # CK_FORK=no: forking an ASan process for every check made these tests
    # ten times slower; a failing check still fails its program.  Without
    # forks Check enforces no timeouts; where they apply (CK_FORK unset),
    # test/Makefile.am multiplies them by 10 in this build
    # (CK_TIMEOUT_MULTIPLIER).
    if ! (cd "$san" && CK_FORK=no make -j"$jobs" -C test unit-check); then
        show_failures "$san/test/test-suite.log"
    fi
    count "$san/test/test-suite.log"
else
    echo "test: configure --enable-sanitizers failed" >&2
    failed=$((failed + 1))
fi

# --- 3. valgrind on small MPI tests ------------------------------------------
# test_allreduce on 3 ranks (every algorithm forced in turn is the MPI
# tests' job; here: the decision's picks, IN_PLACE, derived types), and
# test_primitives on a 2x2 torus (multi-lane schedules, units, barrier),
# and test_primitives with every timed class handed over (coll_topo_autotune).
vgdir="$builds/valgrind"
rm -rf "$vgdir"
component="$werror/ompi-coll-topo/.libs"
ompi_pkglibdir=$(ompi_info --parsable --path pkglibdir | sed -n 's/^path:pkglibdir://p')
# valgrind_run NAME NP PROGRAM [MPIRUN ARGS...] -- [PROGRAM ARGS...]
valgrind_run() {
    local name=$1 np=$2 prog="$werror/test/mpi/$3" dir="$vgdir/$1" extra=() pargs=()
    shift 3
    while [ $# -gt 0 ] && [ "$1" != -- ]; do extra+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    pargs=("$@")
    step "valgrind memcheck: $name ($np ranks)"
    mkdir -p "$dir"
    if [ ! -x "$prog" ] || [ ! -f "$component/mca_coll_topo.so" ]; then
        echo "test: valgrind stage needs $prog and $component/mca_coll_topo.so from the -Werror build" >&2
        echo "FAIL: valgrind $name"
        failed=$((failed + 1))
        return
    fi
    local mpirun_args=(-np "$np" --oversubscribe)
    [ "$(id -u)" -eq 0 ] && mpirun_args+=(--allow-run-as-root)
    # shellcheck disable=SC2054 # the commas are inside MCA values
    mpirun_args+=(
        --mca mca_component_path "$component:$ompi_pkglibdir"
        --mca coll topo,tuned,inter,basic,libnbc,self
        --mca coll_topo_verbose 1
        --mca coll_topo_check_plans 1
        --mca btl self,vader
        "${extra[@]}"
    )
    # --keep-debuginfo: Open MPI dlcloses its components at MPI_Finalize;
    # without it the leak stacks of the component would read "???".
    local vg_args=(
        --keep-debuginfo=yes
        --leak-check=full
        --show-leak-kinds=definite
        --errors-for-leak-kinds=definite
        --num-callers=40
        --suppressions="$root/test/valgrind/openmpi.supp"
        --log-file="$dir/vg.%p.log"
    )
    local vg_ok=yes
    if ! timeout 900 mpirun "${mpirun_args[@]}" valgrind "${vg_args[@]}" \
            "$prog" "${pargs[@]}" >"$dir/output.txt" 2>&1; then
        cat "$dir/output.txt"
        echo "test: $name failed under valgrind" >&2
        vg_ok=no
    elif ! grep -q 'coll:topo: .* uses ' "$dir/output.txt"; then
        cat "$dir/output.txt"
        echo "test: no 'coll:topo: ... uses' line: the component did not run under valgrind" >&2
        vg_ok=no
    fi
    # One error record = the lines of one "==PID== ..." block up to its
    # blank "==PID==" line.  Count (and print) the records that show
    # coll/topo: its .so, a glue file, a core function or file.
    local ours='mca_coll_topo|coll_topo_[a-z0-9_]*\.c|: topo_[a-z0-9_]+ \(|\((schedule|topology|catalog|verify|cost|links|algo_[a-z0-9_]+)\.c:'
    local total=0 mine=0 log counts
    for log in "$dir"/vg.*.log; do
        [ -e "$log" ] || continue
        counts=$(OURS="$ours" HDR="---- $log" awk '
            function flush() {
                if (rec != "") {
                    total++
                    if (rec ~ ENVIRON["OURS"]) {
                        mine++
                        if (!shown++) print ENVIRON["HDR"] > "/dev/stderr"
                        print rec > "/dev/stderr"
                    }
                }
                rec = ""
            }
            /^==[0-9]+== *$/ { flush(); next }
            /^==[0-9]+== / {
                line = $0
                sub(/^==[0-9]+== /, "", line)
                # the summaries are not error records
                if (line ~ /^(HEAP|LEAK|ERROR) SUMMARY|^ *(in use at exit|total heap usage|definitely|indirectly|possibly|still reachable|suppressed|of which reachable|Rerun with|For lists|For counts|All heap blocks|Reachable blocks|To see them)/) next
                rec = rec $0 "\n"
            }
            END { flush(); printf "%d %d\n", total, mine }' "$log")
        total=$((total + ${counts% *}))
        mine=$((mine + ${counts#* }))
    done
    echo "valgrind: $mine error(s) in coll/topo, $((total - mine)) other unsuppressed record(s) ignored (logs: $dir)"
    [ "$mine" -eq 0 ] || vg_ok=no
    if [ "$vg_ok" = yes ]; then
        echo "PASS: valgrind $name"
        passed=$((passed + 1))
    else
        echo "FAIL: valgrind $name"
        failed=$((failed + 1))
    fi
}
# (price_share 2: the ranks price each decision table together, the
# prices packed, exchanged and unpacked; the runs below price alone)
valgrind_run test_allreduce 3 test_allreduce --mca coll_topo_price_share 2 -- --max-count 64
# (scratch_keep 64: the scratch shrinks at the end of most calls, and
# remembered plans reserve it again)
valgrind_run test_primitives 4 test_primitives --mca coll_topo_topology torus:2x2 \
    --mca coll_topo_scratch_keep 64 -- --max-count 64
# coll_topo_autotune: calls alternating between coll/topo and the previous
# module, the verdicts (margin -0.999: every timed class handed over) and
# the slots' memos cleared by them
valgrind_run autotune 3 test_primitives --mca coll_topo_autotune all \
    --mca coll_topo_autotune_margin -0.999 -- --random 300 --max-count 40 --comms world,split
# the nonblocking and persistent forms: several operations in flight, each
# with its own plan, requests and scratch, freed at the end; every
# multi-lane schedule's lanes in lockstep (coll_topo_lane_sync all)
valgrind_run nonblocking 4 test_nonblocking --mca coll_topo_topology torus:2x2 \
    --mca coll_topo_lane_sync all -- --rounds 3 --ops 10 --max-count 64
# the libfabric transport over shm (multi-lane schedules, every buffer
# registered and released at every call, messages above the inject size:
# posts queued after FI_EAGAIN, sends from a copy), where the component
# has it
if ldd "$component/mca_coll_topo.so" 2>/dev/null | grep -q libfabric &&
    timeout 60 fi_info -p shm -t FI_EP_RDM >/dev/null 2>&1; then
    valgrind_run ofi 4 test_primitives --mca coll_topo_transport ofi \
        --mca coll_topo_ofi_provider shm --mca coll_topo_ofi_register 1 \
        --mca coll_topo_topology torus:2x2 --mca coll_topo_handoff none -- --max-count 1500
else
    echo "SKIP: valgrind ofi (the component has no libfabric transport, or fi_info has no shm provider)"
fi
clean_shm

# --- 4. an emulated torus, and Slurm -----------------------------------------
# Scripts that print one "PASS: ..." or "FAIL: ..." line per check (each
# counted here) and exit 77 where this machine cannot run them (not root,
# no CAP_NET_ADMIN, Slurm not installable): a skip, with their message.
script_stage() {
    local name=$1 log="$builds/$2.log" rc=0 np nf
    shift 2
    step "$name"
    mkdir -p "$builds"
    timeout -k 10 900 "$@" 2>&1 | tee "$log" || rc=$?
    if [ "$rc" -eq 77 ]; then
        echo "test: $name skipped"
        skipped=$((skipped + 1))
        return
    fi
    np=$(grep -c '^PASS: ' "$log" || true)
    nf=$(grep -c '^FAIL: ' "$log" || true)
    passed=$((passed + np))
    failed=$((failed + nf))
    if [ "$rc" -ne 0 ] && [ "$nf" -eq 0 ]; then
        echo "test: $name ended with status $rc and no FAIL line" >&2
        failed=$((failed + 1))
    fi
}
# bad input, a failed start rolled back, stop leaving nothing behind
script_stage "testbed.sh: input checks, start and stop" testbed-cli \
    bash "$root/test/testbed/check-testbed-cli.sh"
tests_dir="$werror/test/mpi"
if [ -x "$tests_dir/test_allreduce" ] && [ -x "$tests_dir/test_primitives" ] &&
    [ -f "$inst/lib/openmpi/mca_coll_topo.so" ]; then
    # the MPI tests over TCP on a 2x2 torus of network namespaces, placed
    # by the coordinates file
    script_stage "MPI tests on an emulated 2x2 torus (testbed.sh)" testbed-mpi \
        bash "$root/test/testbed/run-testbed-tests.sh" "$inst/lib/openmpi" "$tests_dir"
    # srun --mpi=pmix with coll/topo enabled through the environment
    script_stage "MPI tests under Slurm (slurm.sh, srun --mpi=pmix)" slurm-mpi \
        bash "$root/test/slurm/run-slurm-tests.sh" "$inst/lib/openmpi" "$tests_dir"
else
    echo "test: the testbed and Slurm MPI stages need $tests_dir/test_allreduce, test_primitives and the installed component from the -Werror build" >&2
    failed=$((failed + 2))
fi
clean_shm

step "summary: $((SECONDS - stage_start)) s in all"
[ "$skipped" -eq 0 ] || echo "$skipped skipped"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
