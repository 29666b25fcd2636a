#!/bin/bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# run-cases.sh's checks can fail: on run-cases-selftest.table every case
# named f-* must fail (each a check that does not hold) and every other
# pass, with the assertions counted as the table says.  Exit status as
# run-cases.sh's (77 without mpirun, 99 without programs or component).
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp "${TMPDIR:-/tmp}/coll-topo-selftest.XXXXXX") || exit 99
logs=$(mktemp -d "${TMPDIR:-/tmp}/coll-topo-selftest-logs.XXXXXX") || exit 99
trap 'rm -rf "$out" "$logs"' EXIT
TOPO_TEST_ONLY='' TOPO_TEST_LOGDIR=$logs bash "$here/run-cases.sh" "$here/run-cases-selftest.table" >"$out" 2>&1
rc=$?
case $rc in 77 | 99) cat "$out"; exit $rc ;; esac
status=0
names=$(TOPO_TEST_ONLY='' TOPO_TEST_LIST=1 bash "$here/run-cases.sh" "$here/run-cases-selftest.table" |
    sed -n 's/^\([a-z-]*\) [0-9]*$/\1/p')
[ -n "$names" ] || { echo "FAIL: no case listed"; status=1; }
for n in $names; do
    want=PASS
    [[ $n != f-* ]] || want=FAIL
    if grep -q "^$want: $n: " "$out"; then
        echo "PASS: case $n: $want as it must"
    else
        echo "FAIL: case $n did not $want:"
        grep -A3 "^[A-Z]*: $n: " "$out" | sed 's/^/    /'
        status=1
    fi
done
[ $rc = 1 ] || { echo "FAIL: run-cases.sh exited $rc, not 1 (some cases failed)"; status=1; }
tail -n 1 "$out"
exit $status
