#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# Install everything needed to build and test coll/topo on Debian 12
# (bookworm): compilers, autotools, Open MPI 4.1 with its devel headers,
# Check, valgrind, SimGrid and g++ (tools/topo-sim), libfabric (the OFI
# transport, and fi_info for its tests), and the tools of
# scripts/testbed.sh (iproute2, ping, util-linux).  Slurm and munge are
# installed by scripts/slurm.sh when it needs them.  Idempotent and
# non-interactive; runs apt-get as root, or through sudo otherwise.  Does
# nothing when all packages are present.
set -euo pipefail

packages=(
    build-essential
    autoconf
    automake
    libtool
    pkg-config
    libopenmpi-dev
    openmpi-bin
    check
    libsubunit-dev
    valgrind
    gnuplot-nox
    procps
    iproute2
    iputils-ping
    util-linux
    g++
    libsimgrid-dev
    libfabric-dev
    libfabric-bin
)

missing=()
for p in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [ "$status" = installed ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: all ${#packages[@]} packages already installed"
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    as_root=()
elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
else
    echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "${missing[@]}"
