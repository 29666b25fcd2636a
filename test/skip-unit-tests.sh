#!/bin/sh
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# Stands in for the unit tests when configure did not find the Check library.
echo "SKIP: unit tests not built: the Check library was not found by configure" >&2
echo "      (Debian: apt-get install check libsubunit-dev, then re-run configure)" >&2
exit 77
