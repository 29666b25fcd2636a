#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# Copyright headers of the source files (LICENSE: BSD-3-Clause).
#
#   bash scripts/license-headers.sh --check [FILE...]
#       lists the source files that carry no copyright or SPDX line in their
#       first 15 lines; exit 1 if there is any, 0 otherwise
#   bash scripts/license-headers.sh --apply [FILE...]
#       adds to each of them, in the file's comment syntax,
#           Copyright (c) The ompi-coll-topo authors.
#           SPDX-License-Identifier: BSD-3-Clause
#       as its first lines, after a "#!" line or an editor mode line
#       ("-*- ... -*-") where the file starts with one
#
# Source files: *.c *.h *.cpp *.sh *.am *.m4 and configure.ac that git
# tracks (so nothing autogen.sh, configure or make generates: Makefile.in,
# configure, aclocal.m4, config/m4/, config/build-aux/), or the FILEs
# given.  Outside a git checkout the tree is searched, leaving out those
# generated files and the build and install folders.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
holder="The ompi-coll-topo authors"
spdx="BSD-3-Clause"

usage() { sed -n '4,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 1 ] || usage
mode=$1
shift
case $mode in --check | --apply) ;; *) usage ;; esac

is_source() { # PATH: one of the kinds above?
    case ${1##*/} in
    *.c | *.h | *.cpp | *.sh | *.am | *.m4 | configure.ac) return 0 ;;
    esac
    return 1
}

list_sources() {
    if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$root" ls-files -z | while IFS= read -r -d '' f; do
            is_source "$f" && [ -f "$root/$f" ] && printf '%s\n' "$f"
        done
    else
        (cd "$root" && find . \( -path ./_build -o -path ./_install -o -path ./.git \
            -o -path ./autom4te.cache -o -path ./config/m4 -o -path ./config/build-aux \) -prune -o \
            -type f \( -name '*.[ch]' -o -name '*.cpp' -o -name '*.sh' -o -name '*.am' \
            -o -name '*.m4' -o -name configure.ac \) -print |
            sed 's|^\./||' | grep -vx 'aclocal.m4' | sort)
    fi
}

has_header() { head -n 15 "$1" | grep -Eqi 'SPDX-License-Identifier:|Copyright'; }

# The two lines in FILE's comment syntax.
header_for() {
    case ${1##*/} in
    *.c | *.h | *.cpp)
        printf '/* Copyright (c) %s. */\n/* SPDX-License-Identifier: %s */\n' "$holder" "$spdx" ;;
    *.m4)
        printf 'dnl Copyright (c) %s.\ndnl SPDX-License-Identifier: %s\n' "$holder" "$spdx" ;;
    *)
        printf '# Copyright (c) %s.\n# SPDX-License-Identifier: %s\n' "$holder" "$spdx" ;;
    esac
}

apply() { # FILE: the header after a #! or mode line, else first
    local f=$1 tmp first
    tmp=$(mktemp)
    first=$(head -n 1 "$f")
    case $first in
    '#!'* | *'-*-'*'-*-'*)
        { printf '%s\n' "$first"; header_for "$f"; tail -n +2 "$f"; } >"$tmp" ;;
    *)
        { header_for "$f"; cat "$f"; } >"$tmp" ;;
    esac
    cat "$tmp" >"$f" # keeps the file's mode (scripts stay executable)
    rm -f "$tmp"
}

if [ $# -gt 0 ]; then
    files=("$@")
else
    mapfile -t files < <(list_sources)
    cd "$root"
fi
missing=0
for f in "${files[@]}"; do
    [ -f "$f" ] || { echo "license-headers: no file $f" >&2; exit 2; }
    has_header "$f" && continue
    missing=$((missing + 1))
    if [ "$mode" = --check ]; then
        printf '%s\n' "$f"
    else
        apply "$f"
        echo "added: $f"
    fi
done
if [ "$mode" = --check ]; then
    [ $missing = 0 ] || { echo "license-headers: $missing file(s) without a copyright header (bash scripts/license-headers.sh --apply)" >&2; exit 1; }
    echo "license-headers: every source file has a copyright header"
fi
