#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# Every source file carries the copyright and SPDX lines
# (scripts/license-headers.sh --check; --apply adds them).
exec bash "$(dirname "$0")/../scripts/license-headers.sh" --check
