#!/bin/sh
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# Generate configure and the Makefile.in files (needs autoconf, automake,
# libtool and pkg-config's pkg.m4; scripts/install-deps.sh installs them).
set -e
cd "$(dirname "$0")"
mkdir -p config/m4
autoreconf --install --force --warnings=all,no-portability "$@"
