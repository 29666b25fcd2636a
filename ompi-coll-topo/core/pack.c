/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The executor's packing and temporary-storage rules (pack.h).
 */
#include "pack.h"

bool topo_pack_copy_overlaps(const topo_range_t *ranges, const topo_xfer_t *x)
{
    if (TOPO_XFER_COPY != x->kind) {
        return false;
    }
    for (int i = 0; i < x->nsrc; i++) {
        for (int j = 0; j < x->nranges; j++) {
            if (topo_pack_ranges_meet(&ranges[x->src0 + i], &ranges[x->range0 + j])) {
                return true;
            }
        }
    }
    return false;
}
