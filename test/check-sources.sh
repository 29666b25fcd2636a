#!/bin/sh
# Every .c file of the component must be listed in ompi-coll-topo/Makefile.am,
# and every core/*.c also in test/Makefile.am (the unit tests' copy of the
# core), so a new algorithm file cannot be left out of one build; likewise
# every test/unit/check_*.c must be a unit test in test/Makefile.am, and
# make its test cases with ut_tcase (an explicit timeout; unit_common.h),
# not with tcase_create (Check's default timeout of 4 s).
srcdir=${TOPO_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
comp="$srcdir/ompi-coll-topo/Makefile.am"
tests="$srcdir/test/Makefile.am"
status=0
for f in "$srcdir"/ompi-coll-topo/*.c "$srcdir"/ompi-coll-topo/core/*.c; do
    [ -e "$f" ] || continue
    rel=${f#"$srcdir/ompi-coll-topo/"}
    if ! grep -q "^[[:space:]]*${rel}[[:space:]\\\\]*\$" "$comp"; then
        echo "FAIL: $rel is not listed in ompi-coll-topo/Makefile.am" >&2
        status=1
    fi
    case $rel in
    core/*)
        base=${rel#core/}
        if ! grep -q "^[[:space:]]*\$(core_dir)/${base}[[:space:]\\\\]*\$" "$tests"; then
            echo "FAIL: $rel is not listed in test/Makefile.am (libtopocore_la_SOURCES)" >&2
            status=1
        fi
        ;;
    esac
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
[ $status = 0 ] && echo "all component sources and unit tests are listed in the Makefile.am files, every test case has its timeout"
exit $status
