#!/bin/sh
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# Every .c file of the component must be listed: the glue's in
# ompi-coll-topo/Makefile.am, the core's in ompi-coll-topo/core/sources.am
# (the one list of the core, which the component, the tools and the unit
# tests all build from), so a new file cannot be left out of the build;
# likewise every test/unit/check_*.c must be a unit test in test/Makefile.am,
# and make its test cases with ut_tcase (an explicit timeout;
# unit_common.h), not with tcase_create (Check's default timeout of 4 s).
srcdir=${TOPO_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
comp="$srcdir/ompi-coll-topo/Makefile.am"
core="$srcdir/ompi-coll-topo/core/sources.am"
tests="$srcdir/test/Makefile.am"
status=0
for f in "$srcdir"/ompi-coll-topo/*.c; do
    [ -e "$f" ] || continue
    rel=${f#"$srcdir/ompi-coll-topo/"}
    if ! grep -q "^[[:space:]]*${rel}[[:space:]\\\\]*\$" "$comp"; then
        echo "FAIL: $rel is not listed in ompi-coll-topo/Makefile.am" >&2
        status=1
    fi
done
for f in "$srcdir"/ompi-coll-topo/core/*.c; do
    [ -e "$f" ] || continue
    base=${f#"$srcdir/ompi-coll-topo/core/"}
    if ! grep -q "^[[:space:]]*%reldir%/${base}[[:space:]\\\\]*\$" "$core"; then
        echo "FAIL: core/$base is not listed in ompi-coll-topo/core/sources.am" >&2
        status=1
    fi
done
for f in "$srcdir"/test/unit/check_*.c; do
    [ -e "$f" ] || continue
    name=$(basename "$f" .c)
    if ! grep -q "^${name}_SOURCES = unit/$name.c\$" "$tests" ||
       ! grep -q "^[[:space:]]*${name}[[:space:]\\\\]*\$" "$tests"; then
        echo "FAIL: unit test $name is not in test/Makefile.am (unit_tests and ${name}_SOURCES)" >&2
        status=1
    fi
    if grep -n 'tcase_create[[:space:]]*(' "$f" >&2; then
        echo "FAIL: $name makes a test case with tcase_create (Check's default timeout): use ut_tcase" >&2
        status=1
    fi
done
[ $status = 0 ] && echo "all component sources and unit tests are listed, every test case has its timeout"
exit $status
