#!/bin/bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
#
# report-section.sh FILE NAME: replaces the section NAME of the report FILE
# with standard input. A section is the text between the lines
# "<!-- begin NAME -->" and "<!-- end NAME -->"; each script that measures
# owns one section of docs/EVALUATION.md (evaluate.sh: testbed), so that one
# script rewrites its results without touching the others'. A section that
# FILE does not have yet is appended; FILE is created when missing.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: report-section.sh FILE NAME < TEXT" >&2; exit 2; }
file=$1 name=$2
case $name in *[!A-Za-z0-9_-]* | '') echo "report-section.sh: bad section name '$name'" >&2; exit 2 ;; esac
body=$(mktemp)
trap 'rm -f "$body" "$body.new"' EXIT
cat >"$body"
[ -e "$file" ] || : >"$file"
begin="<!-- begin $name -->" end="<!-- end $name -->"
nb=$(grep -cxF -- "$begin" "$file" || true)
ne=$(grep -cxF -- "$end" "$file" || true)
if [ "$nb" -gt 1 ] || [ "$ne" -gt 1 ] || [ "$nb" != "$ne" ]; then
    echo "report-section.sh: $file has $nb '$begin' and $ne '$end' lines; fix it by hand" >&2
    exit 1
fi
if [ "$nb" -eq 0 ]; then
    { cat "$file"; [ -s "$file" ] && echo; echo "$begin"; cat "$body"; echo "$end"; } >"$body.new"
else
    awk -v b="$begin" -v e="$end" -v f="$body" '
        $0 == b { print; while ((getline l < f) > 0) print l; skip = 1; next }
        $0 == e { skip = 0 }
        !skip' "$file" >"$body.new"
fi
cat "$body.new" >"$file"
